package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// headerSize is the length of a SQLite database file's header.
const headerSize = 100

// headerMagic starts every SQLite 3 database file.
const headerMagic = "SQLite format 3\x00"

// checkHeader reads the header of the database file at path, size bytes
// long, and refuses one that is not a SQLite database, or that is shorter
// than its header says: a file cut short by a copy or a download, which
// SQLite would only report, as "malformed", once a query reads past its
// end. An empty file is refused too: SQLite would open it as a database
// without tables, and every task on it would fail. The layout is
// https://www.sqlite.org/fileformat.html#the_database_header.
func checkHeader(path string, size int64) error {
	if size == 0 {
		return errors.New("file is not a database: it is empty")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var h [headerSize]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Errorf("file is not a database: %d bytes, shorter than a database header", size)
		}
		return err
	}
	if string(h[:len(headerMagic)]) != headerMagic {
		return errors.New("file is not a database: it does not start with the SQLite header")
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	// The page count is valid only when the change counter matches the
	// version-valid-for number (every SQLite since 3.7.0 keeps them so).
	valid := pages > 0 && binary.BigEndian.Uint32(h[24:28]) == binary.BigEndian.Uint32(h[92:96])
	if valid && size < pages*pageSize {
		return fmt.Errorf("database file cut short: %d bytes, but its header says %d pages of %d bytes (%d bytes)",
			size, pages, pageSize, pages*pageSize)
	}
	return nil
}

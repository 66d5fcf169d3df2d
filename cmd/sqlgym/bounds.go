package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/schemas"
)

// clientBounds are serve's bounds on what one client can make the server
// hold: memory per request, per socket and over all sockets, connections,
// and the ended episodes kept for episode.get.
type clientBounds struct {
	batch          int
	replyBytes     int64
	tagsBytes      int
	recentEpisodes int
	recentBytes    int64
	connBytes      int64
	stallTimeout   time.Duration
	readingBytes   int64
	connections    int
	episodeBytes   int64
	liveBytes      int64
}

func (b *clientBounds) register(fs *flag.FlagSet) {
	fs.IntVar(&b.batch, "max-batch", jsonrpc.DefaultMaxBatch, "requests in one JSON-RPC batch; a larger batch is refused whole (-32600)")
	bytesVar(fs, &b.replyBytes, "max-reply-bytes", jsonrpc.DefaultMaxReplyBytes, "bytes of one reply frame or HTTP body; calls past it get -32003")
	bytesVar(fs, &b.tagsBytes, "max-tags-bytes", episodes.DefaultMaxTagsBytes, "bytes of an episode.reset's tags (-32602 past it)")
	fs.IntVar(&b.recentEpisodes, "recent-episodes", episodes.DefaultRecentEpisodes, "ended episodes remembered for episode.get and episode.close")
	bytesVar(fs, &b.recentBytes, "recent-bytes", episodes.DefaultRecentBytes, "bytes of ended trajectories kept whole for episode.get; older ones are read from the trajectory store")
	bytesVar(fs, &b.connBytes, "max-conn-bytes", transport.DefaultMaxConnBytes, "bytes one WebSocket's running requests and unwritten replies may hold before the server stops reading it")
	fs.DurationVar(&b.stallTimeout, "stall-timeout", transport.DefaultStallTimeout, "how long a WebSocket may hold --max-conn-bytes with nothing written to it before it is closed (1008)")
	bytesVar(fs, &b.readingBytes, "max-reading-bytes", transport.DefaultMaxReadingBytes, "bytes of messages being received, over every WebSocket and HTTP request")
	fs.IntVar(&b.connections, "max-connections", transport.DefaultMaxConnections, "open WebSockets and HTTP RPC requests at once, shared fairly among clients (addresses); past a client's share, HTTP 503")
	bytesVar(fs, &b.episodeBytes, "max-episode-bytes", episodes.DefaultMaxEpisodeBytes, "bytes one live episode keeps (prompt, tags, steps); a step that needs more room gets -32602 and the episode stays usable")
	bytesVar(fs, &b.liveBytes, "max-live-bytes", episodes.DefaultMaxLiveBytes, "bytes all live episodes keep together; resets and steps that need more room get -32003")
}

// check refuses bounds that could not work together.
func (b *clientBounds) check(frameBytes int64) error {
	switch {
	case b.batch < 1 || b.recentEpisodes < 1 || b.connections < 1:
		return usageError{"--max-batch, --recent-episodes and --max-connections must be >= 1"}
	case b.replyBytes < 64<<10 || b.connBytes < 64<<10:
		return usageError{"--max-reply-bytes and --max-conn-bytes must be at least 65536"}
	case b.tagsBytes < 2 || b.recentBytes < 0:
		return usageError{"--max-tags-bytes must be >= 2 and --recent-bytes >= 0"}
	case b.episodeBytes < 64<<10 || b.liveBytes < b.episodeBytes:
		return usageError{fmt.Sprintf("--max-episode-bytes must be at least 65536 and --max-live-bytes at least --max-episode-bytes, got %d and %d", b.episodeBytes, b.liveBytes)}
	case b.stallTimeout <= 0:
		return usageError{"--stall-timeout must be positive"}
	case b.readingBytes < frameBytes:
		return usageError{fmt.Sprintf("--max-reading-bytes (%d) must be at least --max-frame-bytes (%d): one whole frame must fit", b.readingBytes, frameBytes)}
	}
	return nil
}

// report writes the bounds into what server.info reports.
func (b *clientBounds) report(l *schemas.Limits) {
	l.MaxBatch, l.MaxReplyBytes = b.batch, b.replyBytes
	l.MaxConnBytes, l.MaxConnections = b.connBytes, b.connections
}

// storeDescription says where ended episodes are recorded, for the error
// of an episode.get whose record is no longer held in memory.
func (s *stackFlags) storeDescription() string {
	if s.trajectories != "" {
		return "the PostgreSQL store given to --trajectories (sqlgym export --trajectories URL)"
	}
	dir := filepath.Join(s.dataDir, "trajectories")
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return fmt.Sprintf("the log under %s (sqlgym export --data-dir %s)", dir, s.dataDir)
}

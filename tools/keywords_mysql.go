package tools

// mysqlReserved are the words a table or column of a MySQL dataset is
// shown in double quotes for (the engine's sessions run with
// ANSI_QUOTES): MariaDB 10.11's keywords (information_schema.KEYWORDS)
// that fail as a bare column name, found with
//
//	SELECT w FROM (SELECT 1 AS `w`) AS x
//
// for each, plus MySQL 8.0's reserved words (the RESERVED rows of its
// information_schema.KEYWORDS), the literals null, true and false,
// and current_role, a function when bare.
// TestMySQLKeywords checks the list against the server the tests run on.
var mysqlReserved = wordSet(`
	accessible add all alter analyze and as asc asensitive before between bigint binary blob both
	by call cascade case change char character check collate column condition constraint continue
	convert create cross cube cume_dist current_date current_role current_time current_timestamp current_user
	cursor database databases day_hour day_microsecond day_minute day_second dec decimal declare
	default delayed delete delete_domain_id dense_rank desc describe deterministic distinct
	distinctrow div do_domain_ids double drop dual each else elseif empty enclosed escaped except
	exists exit explain false fetch first_value float float4 float8 for force foreign from fulltext
	function generated get grant group grouping groups having high_priority hour_microsecond
	hour_minute hour_second if ignore ignore_domain_ids in index infile inner inout insensitive
	insert int int1 int2 int3 int4 int8 integer intersect interval into io_after_gtids
	io_before_gtids is iterate join json_table key keys kill lag last_value lateral lead leading
	leave left like limit linear lines load localtime localtimestamp lock long longblob longtext
	loop low_priority master_bind master_demote_to_replica master_demote_to_slave
	master_ssl_verify_server_cert match maxvalue mediumblob mediumint mediumtext middleint
	minute_microsecond minute_second mod modifies natural no_write_to_binlog not nth_value ntile
	null numeric of offset on optimize optimizer_costs optionally or order out outer outfile over
	page_checksum parse_vcol_expr partition percent_rank portion precision primary procedure purge
	range rank read read_write reads real recursive ref_system_id references regexp release rename
	repeat replace require resignal restrict return returning revoke right rlike row row_number
	rows schema schemas second_microsecond select sensitive separator set show signal smallint
	spatial specific sql sql_big_result sql_buffer_result sql_cache sql_calc_found_rows
	sql_no_cache sql_small_result sqlexception sqlstate sqlwarning ssl starting stats_auto_recalc
	stats_persistent stats_sample_pages stored straight_join system table terminated then tinyblob
	tinyint tinytext to trailing trigger true undo union unique unlock unsigned update usage use
	using utc_date utc_time utc_timestamp values varbinary varchar varcharacter varying virtual
	when where while window with write xor year_month zerofill
`)

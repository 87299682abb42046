// Package parquet is the Parquet reader of evalbook's input layer
// (report/input): leaderboards and per-unit files written by
// pandas/pyarrow are read as they are, without a conversion to CSV.
//
// Open gives a Reader with the method set of report/input's TableReader
// (Header, Col, Require, Next, Float, Errorf, Rows, Line, Close), which
// TableReader delegates to for a file that Is names; a loader that knows
// its columns reads a batch column by column instead (NextColumns, Cell,
// DictIndexes, Numbers, then Seek to the row it needs). Every problem is
// an *Error naming the file and, where known, the row and the column; a
// corrupt or hostile file is an error, never a panic, and the sizes a
// file declares are checked against its size before they are trusted.
//
// The package depends on nothing in report: report/input builds on it
// and is the only package that opens a file with it (input.OpenTable);
// report/load reads the columns of a units file through it, and the
// loaders and kinds ask Is which reader a path takes.
package parquet

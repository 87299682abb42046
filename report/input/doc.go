// Package input is evalbook's input layer: every byte a build reads from
// a study passes through it, and it is the only package that opens study
// files (issues 19 and 14). Package report (the kinds, the build
// orchestration, the cache, serve, the provenance and the site) reads
// through it and never calls os.Open or os.ReadFile on an input itself;
// report/inputlayer_test.go enforces that.
//
// # Boundary
//
// input does not import report, so there is no cycle. From the manifest
// the layer needs only a small spec: the study directory and manifest
// file, the study title, allow_outside, the decompressed-size cap, and the
// input entries (path, columns, dataset, method, missing, missing_values,
// duplicates, line). Those entry types move here (report keeps aliases
// such as type InputEntry = input.Entry so the manifest decoder and the
// kinds stay unchanged); the rest of the manifest stays in report.
//
// # Layout (in the order the code moves)
//
//  1. ReadSet (step 1): what one analysis read — files, and path patterns
//     with the files they matched — from which the cache key, serve's
//     watch list and the provenance are all derived.
//  2. HashStore (step 2): content hashes of input files, re-hashed only
//     when a file's identity (size, times, inode, device) changed; Stamp
//     for serve's watch list; SHA256File.
//  3. TableReader (step 3): the CSV/TSV tokenizer, Parquet (through
//     report/input/parquet, below this package), gzip with a
//     decompressed-size cap, strict number parsing and
//     positioned errors (InputError). Like 1 and 2 it depends on nothing
//     in report.
//  4. The layer itself (step 4): the per-build state and its per-analysis
//     views (noteFile/pin hashing, match/expand of path patterns,
//     checkFile — regular files inside the study directory unless
//     allow_outside —, readSource for pages and the bibliography), the
//     results, characteristics and units loaders, the shared units pass
//     (UnitsSink, batches, parallel byte ranges), and the ranked-run,
//     truth and prediction readers.
//
// report keeps what interprets the inputs for a study: the kinds, the
// manifest decoder, the build, the cache (which stores ReadSets and asks
// the HashStore), serve (which watches Stamps) and the site writer.
//
// # Status
//
// Steps 1 to 3 (ReadSet, HashStore, TableReader) live here, with the
// path rules (MatchPattern and Match, AbsPath, CheckFile, ReadText) and
// the records of runs and truth files (Lines, lines.go). The ranked-run,
// truth and prediction readers are report/input/runs, over Lines. Step 4
// — the per-build state and its views (noteFile/pin, the loaders) and
// the units pass — is report/load, which reads only through this
// package and takes a plain load.Config, not the manifest. Until it
// moves here, report/load uses pieces of the table reader that the layer
// will keep to itself then: the byte-range methods of
// TableReader that the parallel units pass uses (DataRange, Section,
// LineEndAfter, LinesRead, SetRows, SetOutside), OpenRegular (also used
// to read the manifest), and the message helpers every reader shares
// (Errorf, Quote, Clip, BadName; a missing column's did-you-mean is
// parquet.SuggestColumn, which the Parquet reader gives too).
package input

//! `workload-lens snapshot`: one cluster's state to a file, and reading it
//! back for `get --snapshot` and `top --snapshot`.
//!
//! What goes in the file, and how it reads back, is the engine's
//! ([`workload_lens::SnapshotReader`], [`workload_lens::SnapshotHeader`]):
//! this module connects, writes the lines the listing records, gzip
//! compressed, and reads a file's lines back, each bounded.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use workload_lens::{
    ClusterOp, ClusterOutcome, DescribeQuery, Description, Engine, Error, ErrorCode, Limits,
    ListQuery, Listing, SnapshotEnd, SnapshotHeader, SnapshotQuery, SnapshotReader,
};

use super::{Cluster, ConnectOptions, failure};
use crate::failure::{EXIT_RESOLVE, Failure};
use crate::input::InputPath;
use crate::output::Format;

/// What `snapshot` reads.
#[derive(Debug)]
pub struct SnapshotOptions {
    /// One namespace (none: every namespace).
    pub namespace: Option<String>,
    pub selector: Option<String>,
    pub chunk_size: usize,
    pub definitions: Vec<InputPath>,
    pub connect: ConnectOptions,
    /// `--no-cluster-definitions`.
    pub skip_definitions: bool,
}

/// What `snapshot` wrote.
#[derive(Debug)]
pub struct Written {
    pub path: PathBuf,
    pub cluster: String,
    pub records: usize,
    pub workloads: usize,
    pub bytes: u64,
    pub seconds: f64,
    /// What the capture left out, and why.
    pub warnings: Vec<super::Warning>,
}

/// `workload-lens snapshot -o FILE`: list every covered type (and the pods
/// and owners between them) through the engine's protocol, recording each
/// page's objects as they are read, into FILE (gzip JSON Lines). Written to
/// `FILE.partial` first and renamed at the end: a failed run leaves no
/// snapshot behind, and never half of one.
pub fn snapshot(
    scope: &SnapshotOptions,
    out: &Path,
    cluster_name: Option<&str>,
    limits: &Limits,
) -> Result<Written, Failure> {
    let start = Instant::now();
    let format = Format::Human;
    let cluster = Cluster::connect(&scope.connect, format)?;
    let engine = super::engine(&scope.definitions, limits)?;
    let namespace = scope.namespace.clone();
    let query = ListQuery {
        all_types: true,
        namespace: namespace.clone(),
        label_selector: scope.selector.clone(),
        chunk_size: scope.chunk_size,
        pods: true,
        skip_definitions: scope.skip_definitions,
        ..ListQuery::default()
    };
    let name = cluster_name
        .map(str::to_string)
        .or_else(|| cluster.context.clone())
        .unwrap_or_else(|| cluster.server.clone());
    let mut header = SnapshotHeader::new(&name, now_rfc3339());
    header.namespace = namespace;
    header.label_selector = scope.selector.clone();

    let partial = partial_path(out);
    let file = File::create(&partial).map_err(|e| write_failure(&partial, &e))?;
    let mut gz = GzEncoder::new(BufWriter::new(file), Compression::default());
    let outcome = (|| {
        let mut io_error: Option<std::io::Error> = None;
        let mut records = 0usize;
        writeln!(gz, "{}", header.line()).map_err(|e| write_failure(&partial, &e))?;
        let session = engine
            .cluster_session(ClusterOp::List(query))
            .with_server(&cluster.server)
            .recording();
        let result = cluster.run_each(session, None, |s| {
            for line in s.take_records() {
                records += 1;
                if let Err(e) = gz
                    .write_all(line.as_bytes())
                    .and_then(|()| gz.write_all(b"\n"))
                {
                    io_error = Some(e);
                    return Err(Error::new(
                        ErrorCode::Usage,
                        "the snapshot could not be written",
                    ));
                }
            }
            Ok(())
        });
        if let Some(e) = io_error {
            return Err(write_failure(&partial, &e));
        }
        let listing = match result {
            Ok(ClusterOutcome::Listing(l)) => l,
            Ok(_) => return Err(Failure::new(EXIT_RESOLVE, "internal: not a listing")),
            Err(e) => return Err(failure(&e, format)),
        };
        let end = SnapshotEnd::of(&listing, records);
        writeln!(gz, "{}", end.line()).map_err(|e| write_failure(&partial, &e))?;
        Ok((records, listing.workloads.len(), warnings_of(&end)))
    })();
    let finished = outcome.and_then(|counts| {
        let mut w = gz.finish().map_err(|e| write_failure(&partial, &e))?;
        w.flush().map_err(|e| write_failure(&partial, &e))?;
        drop(w);
        std::fs::rename(&partial, out).map_err(|e| write_failure(out, &e))?;
        Ok(counts)
    });
    let (records, workloads, warnings) = match finished {
        Ok(c) => c,
        Err(f) => {
            let _ = std::fs::remove_file(&partial);
            return Err(f);
        }
    };
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    Ok(Written {
        path: out.to_path_buf(),
        cluster: name,
        records,
        workloads,
        bytes,
        seconds: start.elapsed().as_secs_f64(),
        warnings,
    })
}

/// A capture's warnings: the listing's, and the lists only a description
/// reads (events, Kueue Workloads, gang groups) the server refused.
fn warnings_of(end: &SnapshotEnd) -> Vec<super::Warning> {
    let mut out: Vec<super::Warning> = end.warnings.iter().cloned().map(Into::into).collect();
    for u in &end.unlisted {
        if end.warnings.iter().any(|w| w.object == u.type_) {
            continue;
        }
        let place = u
            .namespace
            .as_ref()
            .map(|n| format!(" in namespace {n}"))
            .unwrap_or_default();
        out.push(super::Warning {
            reason: "snapshot".into(),
            message: format!(
                "{}{place} not recorded ({}, HTTP {}): describe --snapshot and why --snapshot \
                 will say they could not be listed",
                u.type_, u.message, u.status
            ),
        });
    }
    out
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

fn write_failure(path: &Path, e: &std::io::Error) -> Failure {
    Failure::new(
        EXIT_RESOLVE,
        format!("cannot write the snapshot {}: {e}", path.display()),
    )
}

/// The listing a snapshot file gives (`get --snapshot`, `top --snapshot`):
/// gzip or plain JSON Lines, each line read within `maxInputBytes`.
pub fn read_listing(
    path: &str,
    engine: &Engine,
    query: &SnapshotQuery,
    format: Format,
) -> Result<(Listing, Option<i64>), Failure> {
    let reader = read_file(path, engine, format)?;
    let at = reader
        .header()
        .and_then(|h| super::epoch_seconds(&h.captured_at));
    let listing = reader
        .listing(query)
        .map_err(|e| snapshot_failure(e, path, format))?;
    Ok((listing, at))
}

/// `describe --snapshot FILE TYPE/NAME` (and `why`): the description the
/// live command gave, and the capture time (seconds since the epoch) its
/// ages count to. The namespace: `-n`, else the one the snapshot holds,
/// else `default`.
pub fn read_description(
    path: &str,
    engine: &Engine,
    mut query: DescribeQuery,
    format: Format,
) -> Result<(Description, Option<i64>), Failure> {
    let reader = read_file(path, engine, format)?;
    let header = reader.header();
    if query.namespace.is_none() {
        query.namespace = Some(
            header
                .and_then(|h| h.namespace.clone())
                .unwrap_or_else(|| "default".into()),
        );
    }
    let at = header.and_then(|h| super::epoch_seconds(&h.captured_at));
    let d = reader
        .describe(&query)
        .map_err(|e| snapshot_failure(e, path, format))?;
    Ok((d, at))
}

/// Read every line of the snapshot at `path` (`-`: stdin).
pub fn read_file(path: &str, engine: &Engine, format: Format) -> Result<SnapshotReader, Failure> {
    let open_failure = |e: std::io::Error| {
        Failure::new(
            crate::failure::EXIT_USAGE,
            format!("cannot read the snapshot {path}: {e}"),
        )
    };
    let raw: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(File::open(path).map_err(open_failure)?)
    };
    let mut buffered = BufReader::new(raw);
    let gzip = buffered
        .fill_buf()
        .map_err(open_failure)?
        .starts_with(&[0x1f, 0x8b]);
    let mut lines: Box<dyn BufRead> = if gzip {
        Box::new(BufReader::new(MultiGzDecoder::new(buffered)))
    } else {
        Box::new(buffered)
    };
    let mut reader = SnapshotReader::new(engine);
    let max = engine.limits().max_input_bytes;
    let mut line = Vec::new();
    loop {
        line.clear();
        // One line at a time, never more than the limit (and its newline).
        let n = (&mut lines)
            .take(max as u64 + 2)
            .read_until(b'\n', &mut line)
            .map_err(open_failure)?;
        if n == 0 {
            break;
        }
        if !line.ends_with(b"\n") && line.len() > max {
            let e = Error::limit_error(
                "maxInputBytes",
                format!(
                    "snapshot line {} is longer than the limit maxInputBytes ({max} bytes)",
                    reader.lines() + 1
                ),
            );
            return Err(snapshot_failure(e, path, format));
        }
        let text = match std::str::from_utf8(&line) {
            Ok(t) => t,
            Err(_) => {
                let e = Error::new(
                    ErrorCode::Parse,
                    format!("snapshot line {} is not UTF-8", reader.lines() + 1),
                );
                return Err(snapshot_failure(e, path, format));
            }
        };
        reader
            .feed_line(text)
            .map_err(|e| snapshot_failure(e, path, format))?;
    }
    Ok(reader)
}

/// A snapshot's error: its message names the file and the line, and the
/// machine formats carry the line as `location.line`.
fn snapshot_failure(e: Error, path: &str, format: Format) -> Failure {
    let line = e.location().line;
    let place = match line {
        Some(n) => format!("snapshot {path}, line {n}"),
        None => format!("snapshot {path}"),
    };
    let e = e.context(&place);
    let mut f = failure(&e, format);
    if let (Some(n), Some(_)) = (line, &f.stdout) {
        let body = serde_json::json!({
            "error": e.code().as_str(),
            "message": f.message,
            "location": {"line": n},
        });
        f.stdout = match format {
            Format::Human => None,
            Format::Json => crate::output::json(&body).ok(),
            Format::Yaml => crate::output::yaml(&body).ok(),
        };
    }
    f
}

/// Now, as RFC 3339 in UTC, to the second.
fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0);
    rfc3339_of(secs)
}

/// Seconds since the epoch as RFC 3339 in UTC.
fn rfc3339_of(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_files_sit_beside_the_snapshot() {
        assert_eq!(
            partial_path(Path::new("/tmp/a/prod.jsonl.gz")),
            PathBuf::from("/tmp/a/prod.jsonl.gz.partial")
        );
    }

    #[test]
    fn timestamps_are_rfc3339() {
        assert_eq!(rfc3339_of(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_of(951782400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_of(1796527545), "2026-12-06T03:25:45Z");
        assert_eq!(rfc3339_of(4102444799), "2099-12-31T23:59:59Z");
        assert_eq!(now_rfc3339().len(), 20);
    }
}

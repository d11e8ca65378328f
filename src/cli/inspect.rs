//! The commands that look into data: `inspect` (a shard's samples) and `extract` (the candidates
//! of an HTML page or a WARC file, as the crawler sees them).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, bail};
use object_store::ObjectStoreExt;

use altflow::writer::store::Store;
use altflow::writer::tar;

/// `altflow inspect`.
#[derive(clap::Args)]
pub struct InspectArgs {
    /// Shard URL or path, e.g. out/shard-p0000-o000000000000.tar or s3://bucket/x.tar.
    shard: String,
    /// Print at most this many samples.
    #[arg(long, default_value_t = usize::MAX)]
    limit: usize,
    /// One JSON object per line instead of text.
    #[arg(long)]
    json: bool,
}

/// `altflow extract`.
#[derive(clap::Args)]
pub struct ExtractArgs {
    /// HTML file to read.
    #[arg(
        long,
        conflicts_with = "warc",
        required_unless_present = "warc",
        requires = "base_url"
    )]
    html: Option<PathBuf>,
    /// URL the HTML page was fetched from, to resolve relative links.
    #[arg(long)]
    base_url: Option<url::Url>,
    /// WARC or WAT file (plain or gzip) to read.
    #[arg(long)]
    warc: Option<PathBuf>,
    /// With --warc: print only the number of records of each WARC-Type, as JSON.
    #[arg(long, requires = "warc")]
    counts: bool,
}

/// `altflow extract`: one JSON line per candidate.
pub fn extract(args: ExtractArgs) -> anyhow::Result<()> {
    match (args.html, args.base_url, args.warc) {
        (Some(html), Some(base_url), _) => {
            let bytes =
                std::fs::read(&html).with_context(|| format!("reading {}", html.display()))?;
            let page = altflow::web::html::extract(&bytes, &base_url);
            let mut out = std::io::stdout().lock();
            for image in &page.images {
                let candidate = altflow::web::html::candidate(image, &page, &base_url, 1);
                print_candidate(&mut out, &candidate, None)?;
            }
            Ok(())
        }
        (_, _, Some(warc)) => extract_warc(&warc, args.counts),
        _ => bail!("give --html FILE --base-url URL, or --warc FILE"),
    }
}

/// A candidate as `altflow extract` prints it (keys in alphabetical order, as they always were).
#[derive(serde::Serialize)]
struct Line<'a> {
    alt: &'a str,
    context: &'a str,
    declared_height: u32,
    declared_width: u32,
    dominance: f32,
    dominant: bool,
    figcaption: &'a str,
    id: &'a str,
    image_url: &'a str,
    in_boilerplate: bool,
    in_link: bool,
    page_language: &'a str,
    page_title: &'a str,
    page_url: &'a str,
    position: u32,
    title: &'a str,
    warc_record: Option<u64>,
}

/// Writes a candidate as one JSON line.
fn print_candidate(
    out: &mut impl std::io::Write,
    c: &altflow::record::Candidate,
    warc_record: Option<u64>,
) -> std::io::Result<()> {
    let line = Line {
        alt: &c.alt,
        context: &c.context,
        declared_height: c.declared_height,
        declared_width: c.declared_width,
        dominance: c.dominance,
        dominant: c.dominant,
        figcaption: &c.figcaption,
        id: &c.id,
        image_url: &c.image_url,
        in_boilerplate: c.in_boilerplate,
        in_link: c.in_link,
        page_language: &c.page_language,
        page_title: &c.page_title,
        page_url: &c.page_url,
        position: c.position,
        title: &c.image_title,
        warc_record,
    };
    serde_json::to_writer(&mut *out, &line)?;
    out.write_all(b"\n")
}

/// Candidates (or record counts) of every HTML response and WAT metadata record of a WARC file.
fn extract_warc(path: &std::path::Path, counts_only: bool) -> anyhow::Result<()> {
    let reader = altflow::web::warc::open(path, altflow::sources::archive::MAX_RECORD_BYTES)
        .with_context(|| format!("opening {}", path.display()))?;
    let mut counts: std::collections::BTreeMap<String, u64> = Default::default();
    // Opt-outs are the crawl's business: extraction shows everything there is.
    let candidates = altflow::sources::ArchiveCandidates::new(None);
    // Buffered: a line written at a time to stdout was a third of the command's time on a WAT file.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    for (index, record) in reader.enumerate() {
        let record = record.with_context(|| format!("reading {}", path.display()))?;
        if counts_only {
            *counts.entry(record.kind()).or_default() += 1;
            continue;
        }
        for candidate in candidates.of_record(&record) {
            print_candidate(&mut out, &candidate, Some(index as u64))?;
        }
    }
    out.flush()?;
    if counts_only {
        let total: u64 = counts.values().sum();
        println!("{}", serde_json::json!({"records": total, "types": counts}));
    }
    Ok(())
}

/// `altflow inspect`: a shard's samples.
pub async fn inspect(args: InspectArgs) -> anyhow::Result<()> {
    let InspectArgs { shard, limit, json } = args;
    let shard = shard.as_str();
    // Credentials and endpoints come from the environment, as the cloud SDKs read them.
    let (store, path) = Store::open_object(shard, std::iter::empty())?;
    let bytes = store
        .inner
        .get(&path)
        .await
        .with_context(|| format!("reading {shard}"))?
        .bytes()
        .await
        .with_context(|| format!("reading {shard}"))?;
    let members = tar::read_members(&bytes).with_context(|| format!("reading {shard}"))?;
    let mut samples: std::collections::BTreeMap<String, Vec<&tar::Member>> = Default::default();
    let mut order = Vec::new();
    for member in &members {
        let Some((key, _)) = member.name.split_once('.') else {
            continue;
        };
        if !samples.contains_key(key) {
            order.push(key.to_string());
        }
        samples.entry(key.to_string()).or_default().push(member);
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for key in order.iter().take(limit) {
        let parts = &samples[key];
        let find = |ext: &str| {
            parts
                .iter()
                .find(|m| m.name.ends_with(ext))
                .map(|m| &m.data)
        };
        let caption = find(".txt")
            .map(|d| String::from_utf8_lossy(d).into_owned())
            .unwrap_or_default();
        let meta: serde_json::Value = find(".json")
            .and_then(|d| serde_json::from_slice(d).ok())
            .unwrap_or(serde_json::Value::Null);
        let jpg = find(".jpg").map(|d| d.len()).unwrap_or(0);
        if json {
            writeln!(
                out,
                "{}",
                serde_json::json!({"key": key, "caption": caption, "jpg_bytes": jpg, "meta": meta})
            )?;
        } else {
            writeln!(
                out,
                "{key}  {}x{} jpg {jpg} B  {:?}\n    from {}",
                meta["width"],
                meta["height"],
                caption,
                meta["image_url"].as_str().unwrap_or("?")
            )?;
        }
    }
    out.flush()?;
    if !json {
        println!("{} sample(s) in {shard}", order.len());
    }
    Ok(())
}

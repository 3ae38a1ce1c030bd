//! HTML pages of `packetsim reproduce` (issue 12 item 5): each study's folder gets an
//! `index.html` beside its report.md (the report rendered, its figures inline, a coloured
//! verdict table, the paper's source and a glossary of the terms it uses), and `reproduce all`
//! writes an index of every study. Each page is one self-contained file: SVG inline, CSS in a
//! `<style>` element, no script and no external file.
//!
//! The pages are `minijinja` templates ([`TEMPLATES`]), which escape every value they insert;
//! only the SVG figures and the HTML that pulldown-cmark renders from report.md are inserted as
//! they are (`|safe`). The report's HTML is never edited as a string: its figures, the scroll
//! wrapper of its tables and the classes of its verdict cells are events put into
//! pulldown-cmark's event stream before it writes the HTML ([`style_tables`]); the one
//! fragment with a value in it, a figure's caption, is escaped by minijinja's own
//! [`minijinja::HtmlEscape`].

use minijinja::HtmlEscape;
use packetsim::studies::{Paper, Study, StudyOutcome};
use pulldown_cmark::{Alignment, CowStr, Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;
use std::path::{Path, PathBuf};

const STYLE: &str = "body{font-family:sans-serif;max-width:1150px;margin:2em auto;padding:0 1em;\
color:#222;line-height:1.45}table{border-collapse:collapse;margin:1em 0;font-size:13px}th,td{\
border:1px solid #ccc;padding:3px 6px;vertical-align:top}th{background:#f0f0f0}code{background:\
#f4f4f4;padding:0 3px}figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}figcaption{\
font-size:13px;color:#555}.scroll{overflow-x:auto}blockquote{background:#fff3cd;border-left:4px \
solid #e0a800;margin:1em 0;padding:.4em 1em}td.holds,td.nothold,td.undecided{white-space:\
nowrap}.holds{background:#d4edda;color:#155724}.nothold{\
background:#f8d7da;color:#721c24;font-weight:bold}.undecided{background:#fff3cd;color:#7a5b00}\
.paper{background:#f7f7fb;border:1px solid #dde;padding:.6em 1em}dt{font-weight:bold}dd{margin:0 \
0 .5em 1.5em}nav{font-size:14px}";

/// The page templates, by name (the `.html` names turn on HTML escaping of inserted values).
const TEMPLATES: &[(&str, &str)] = &[
    (
        "head.html",
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{ title }}</title>
<style>{{ style|safe }}</style>
</head>
<body>
"#,
    ),
    (
        "glossary.html",
        r#"<dl>
{% for t in glossary %}<dt>{{ t.term }}</dt><dd>{{ t.meaning }}</dd>
{% endfor %}</dl>
"#,
    ),
    (
        "paper.html",
        r#"{% if paper %}<div class="paper"><p><strong>The paper:</strong> <cite>{{ paper.title }}</cite>, by {{ paper.authors }}. {{ paper.venue }}.</p><p>Original tool: {{ paper.tool }}. Specification: <code>{{ paper.spec }}</code> (in the project's shared specs).</p></div>
{% else %}<div class="paper"><p>The paper's source is named in the report below.</p></div>
{% endif %}"#,
    ),
    (
        "verdicts.html",
        r#"<table class="verdicts">
<thead><tr><th>check</th><th>verdict</th>{% if ns2 %}<th>as ns-2.35 would</th>{% endif %}<th>paper's claim</th></tr></thead>
<tbody>
{% for r in rows %}<tr><td>{{ r.id }}</td><td class="{{ r.class }}">{{ r.verdict }}</td>{% if r.ns2 %}<td{% if r.ns2.class %} class="{{ r.ns2.class }}"{% endif %}>{{ r.ns2.text }}</td>{% endif %}<td>{{ r.claim }}</td></tr>
{% endfor %}</tbody>
</table>
"#,
    ),
    (
        "study.html",
        r#"{% include "head.html" %}{% if with_index %}<nav><a href="../index.html">All studies</a></nav>
{% endif %}<h1>{{ study_title }}</h1>
<p><code>packetsim reproduce {{ name }}</code>: the report (report.md) with its figures drawn inline. Files beside this page: checks.csv and the figures' CSV and SVG files.</p>
{% include "paper.html" %}{{ banner|safe }}{% if verdicts %}<h2>Verdicts</h2>
<div class="scroll">
{{ verdicts|safe }}</div>
{% endif %}<hr>
{{ body|safe }}{% if figures %}<h2>Figures</h2>
{% for f in figures %}<figure>
{{ f.svg|safe }}
<figcaption>{{ f.caption }}</figcaption>
</figure>
{% endfor %}{% endif %}<h2>Glossary</h2>
{% include "glossary.html" %}</body>
</html>
"#,
    ),
    (
        "index.html",
        r#"{% include "head.html" %}<h1>packetsim: reproduced studies</h1>
{% if quick %}<blockquote><strong>Quick mode (<code>--quick</code>): indicative only.</strong> Few runs and few points: every verdict is a smoke result, not a finding.</blockquote>
{% endif %}<p>Each study below reproduces one paper's experiments and judges each of its claims: <span class="holds">holds</span>, <span class="nothold">does not hold</span> or <span class="undecided">not decidable</span> (see the glossary). The paper's own claims are counted apart from the study's extensions and sensitivities.</p>
<table>
<thead><tr><th rowspan="2">study</th><th rowspan="2">paper</th><th colspan="3">the paper's claims</th><th colspan="3">extensions and sensitivities</th></tr>
<tr><th>holds</th><th>does not hold</th><th>not decidable</th><th>holds</th><th>does not hold</th><th>not decidable</th></tr></thead>
<tbody>
{% for s in studies %}<tr><td><a href="{{ s.name }}/index.html">{{ s.name }}</a><br><small>{{ s.title }}</small><br><small><a href="{{ s.name }}/report.md">report.md</a></small></td><td>{% if s.paper %}<cite>{{ s.paper.title }}</cite><br>{{ s.paper.authors }}. {{ s.paper.venue }}. Original tool: {{ s.paper.tool }}.{% else %}named in the study's report{% endif %}</td>{% for c in s.counts %}<td class="{% if c.n > 0 %}{{ c.class }}{% endif %}" style="text-align:right">{{ c.n }}</td>{% endfor %}</tr>
{% endfor %}</tbody>
</table>
<h2>Glossary</h2>
{% include "glossary.html" %}</body>
</html>
"#,
    ),
];

/// Renders template `name` with `ctx`.
fn render(name: &str, ctx: minijinja::Value) -> Result<String, String> {
    let mut env = minijinja::Environment::new();
    // Each template ends its last line (head.html's body tag, a table's closing tag).
    env.set_keep_trailing_newline(true);
    for (n, t) in TEMPLATES {
        env.add_template(n, t)
            .map_err(|e| format!("page template {n}: {e}"))?;
    }
    env.get_template(name)
        .and_then(|t| t.render(ctx))
        .map_err(|e| format!("page template {name}: {e}"))
}

/// A term the reports use and what it means here.
#[derive(Serialize)]
pub struct Term {
    /// The term as the reports write it.
    pub term: &'static str,
    /// Its meaning.
    pub meaning: &'static str,
}

/// The terms the study reports use, in alphabetical order.
pub const GLOSSARY: &[Term] = &[
    Term { term: "AAL5", meaning: "ATM Adaptation Layer 5: an IP packet is cut into 48-byte cell payloads; the last cell of a packet is flagged, and a packet missing any cell is discarded at reassembly." },
    Term { term: "ACK", meaning: "TCP acknowledgement: the receiver names the next byte it expects." },
    Term { term: "AF", meaning: "Assured Forwarding: the DiffServ class whose packets are policed into IN and OUT and queued in RIO (study 4)." },
    Term { term: "ALT", meaning: "Short for RTX_TO_ALT." },
    Term { term: "BDP", meaning: "Bandwidth-delay product: the data a path holds in flight at full rate, rate times round-trip time." },
    Term { term: "BE", meaning: "Best Effort: the DiffServ class without a profile, queued in RED (study 4)." },
    Term { term: "BS", meaning: "Base station: the router between the wired network and a radio link (studies 2 and 5)." },
    Term { term: "CE", meaning: "Congestion Experienced: the ECN codepoint a queue sets instead of dropping a packet." },
    Term { term: "CI", meaning: "Confidence interval: here the 95% Student-t interval of a mean over independent replications (seeds), written [low, high]." },
    Term { term: "CIP", meaning: "Cellular IP: a micro-mobility protocol in which base stations keep routing caches refreshed by the mobile's packets; handoffs here are semisoft (study 5)." },
    Term { term: "cwnd", meaning: "Congestion window: how much unacknowledged data the sender allows itself, in bytes." },
    Term { term: "does not hold", meaning: "Verdict: the measured interval contradicts the paper's claim, beyond its tolerance." },
    Term { term: "ECN", meaning: "Explicit Congestion Notification (RFC 3168): a queue marks packets CE and the sender reduces its window as for a loss, without the loss." },
    Term { term: "EF", meaning: "Expedited Forwarding: the DiffServ class for constant-rate traffic (study 4)." },
    Term { term: "EPD", meaning: "Early Packet Discard: an ATM switch above a buffer threshold refuses every cell of a packet that starts arriving, so it never carries part of one." },
    Term { term: "goodput", meaning: "Application data delivered in order per second, retransmissions and headers excluded (unless a report says \"wire level\")." },
    Term { term: "HAWAII", meaning: "Handoff-Aware Wireless Access Internet Infrastructure: a micro-mobility protocol that sets up host routes in the domain's routers; MSF is its forwarding path setup (study 5)." },
    Term { term: "holds", meaning: "Verdict: the measured interval supports the paper's claim within its stated tolerance." },
    Term { term: "IN", meaning: "In-profile: a DiffServ packet the token bucket found tokens for; RIO drops it later than OUT packets." },
    Term { term: "IW", meaning: "Initial window: the congestion window a TCP connection starts with, in segments." },
    Term { term: "MSF", meaning: "Multiple Stream Forwarding: the HAWAII path setup in which the old base station forwards packets to the new one during a handoff." },
    Term { term: "MSS", meaning: "Maximum segment size: the most payload one TCP segment carries." },
    Term { term: "not decidable", meaning: "Verdict: the runs cannot tell, because too few replications were run or the interval straddles the claim's bound." },
    Term { term: "OUT", meaning: "Out-of-profile: a DiffServ packet sent beyond its token-bucket profile; RIO drops it first." },
    Term { term: "PPD", meaning: "Partial Packet Discard: once an ATM switch drops one cell of a packet it drops the rest of that packet's cells, except the last." },
    Term { term: "RED", meaning: "Random Early Detection: a queue that drops (or marks) arrivals with a probability growing with its average length." },
    Term { term: "RIO", meaning: "RED with In and Out: one queue with two RED curves, a lenient one for IN and a strict one for OUT packets." },
    Term { term: "RTO", meaning: "Retransmission timeout: how long a sender waits for an acknowledgement before it retransmits." },
    Term { term: "RTOmin", meaning: "The lower bound of the RTO (study 1 compares 450 ms and 100 ms)." },
    Term { term: "RTT", meaning: "Round-trip time of a packet and its acknowledgement." },
    Term { term: "RTX_SAME", meaning: "SCTP retransmission policy: a retransmission goes to the same destination as the original transmission." },
    Term { term: "RTX_TO_ALT", meaning: "SCTP retransmission policy of RFC 2960 section 6.4: a retransmission goes to an alternate destination address, the other path." },
    Term { term: "SACK", meaning: "Selective acknowledgement (RFC 2018): the receiver lists the blocks it holds beyond a hole; also the TCP variant that uses them to retransmit only what is missing." },
    Term { term: "SAME", meaning: "Short for RTX_SAME." },
    Term { term: "SCTP", meaning: "Stream Control Transmission Protocol (RFC 2960): a transport whose association can use several destination addresses (multihoming)." },
    Term { term: "srtt", meaning: "Smoothed round-trip time: the sender's running average of RTT samples." },
    Term { term: "ssthresh", meaning: "Slow-start threshold: below it cwnd grows exponentially, above it linearly." },
    Term { term: "T3", meaning: "SCTP's retransmission timer (T3-rtx, RFC 2960 section 6.3); a T3 timeout retransmits and collapses the congestion window to one MTU." },
    Term { term: "TR-ACK", meaning: "Triplicate reconnection ACKs (from Freeze-TCP): three duplicate ACKs the mobile sends after a disconnection so the sender retransmits at once." },
    Term { term: "W_max", meaning: "Study 2: the largest receive window the mobile advertises; the proposal advertises W_max minus the base station's queue." },
    Term { term: "WRR", meaning: "Weighted round robin: a scheduler that serves the class queues in turn, each up to its weight (study 4: EF:AF:BE = 1:4:5)." },
    Term { term: "S1, E5, X1, Q4, N1", meaning: "Labels: S = a shape check of the report, E = an experiment of the study's spec, X = an extension beyond the paper, Q = an open question answered in the spec, N = a numeric tolerance of the spec." },
];

/// Whether `term` occurs in `text` as a whole word.
fn mentions(text: &str, term: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    text.match_indices(term).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + term.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The glossary entries (all of them, or those `text` mentions), for `glossary.html`.
fn glossary(text: Option<&str>) -> Vec<&'static Term> {
    GLOSSARY
        .iter()
        .filter(|t| match text {
            None => true,
            // The label entry is shown when a report uses any S-numbered check.
            Some(x) if t.term.starts_with("S1,") => mentions(x, "S1"),
            Some(x) => mentions(x, t.term),
        })
        .collect()
}

/// The CSS class of a verdict, if `s` is one.
fn verdict_class(s: &str) -> Option<&'static str> {
    match s.trim().to_ascii_lowercase().as_str() {
        "holds" => Some("holds"),
        "does not hold" => Some("nothold"),
        "not decidable" => Some("undecided"),
        _ => None,
    }
}

/// The records of a CSV text, header included (RFC 4180 quoting, as the studies' `CsvText`
/// writes it), read with the `csv` crate; rows may differ in length (callers check). A record
/// the reader cannot parse (invalid UTF-8) ends the list there.
pub(crate) fn csv_records(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .records()
        .map_while(Result::ok)
        .map(|r| r.iter().map(str::to_owned).collect())
        .collect()
}

/// A cell of the "as ns-2.35 would" column.
#[derive(Serialize)]
struct Ns2Cell {
    text: String,
    class: &'static str,
}

/// A row of the verdict table.
#[derive(Serialize)]
struct VerdictRow {
    id: String,
    verdict: String,
    class: &'static str,
    ns2: Option<Ns2Cell>,
    claim: String,
}

/// A study's checks.csv as a table of id, verdict (coloured) and claim.
fn verdict_table(path: &Path) -> Result<Option<String>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let records = csv_records(&text);
    let Some(header) = records.first() else {
        return Err(format!(
            "{}:1: empty file, expected a CSV header",
            path.display()
        ));
    };
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            format!(
                "{}:1: no column `{name}` (expected id, verdict, claim)",
                path.display()
            )
        })
    };
    let (id, verdict, claim) = (col("id")?, col("verdict")?, col("claim")?);
    // A study that also ran with profile = "ns2" (issue 14) has its verdicts there.
    let ns2 = header.iter().position(|h| h == "ns2_verdict");
    let mut rows = Vec::new();
    for (i, r) in records.iter().enumerate().skip(1) {
        let get = |c: usize| {
            r.get(c).cloned().ok_or_else(|| {
                format!(
                    "{}: record {}: {} fields, expected {}",
                    path.display(),
                    i + 1,
                    r.len(),
                    header.len()
                )
            })
        };
        let v = get(verdict)?;
        let ns2 = match ns2 {
            None => None,
            Some(c) => Some(match get(c)? {
                n if n.is_empty() => Ns2Cell {
                    text: "not run".into(),
                    class: "",
                },
                n if n == v => Ns2Cell {
                    text: "same".into(),
                    class: "",
                },
                n => Ns2Cell {
                    class: verdict_class(&n).unwrap_or(""),
                    text: n,
                },
            }),
        };
        rows.push(VerdictRow {
            id: get(id)?,
            class: verdict_class(&v).unwrap_or(""),
            verdict: v,
            ns2,
            claim: get(claim)?,
        });
    }
    render(
        "verdicts.html",
        minijinja::context! { ns2 => ns2.is_some(), rows },
    )
    .map(Some)
}

/// An SVG file's text for inlining (without an XML declaration or doctype).
fn inline_svg(path: &Path) -> Result<String, String> {
    let s = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let start = s.find("<svg").ok_or_else(|| {
        format!(
            "{}: no <svg> element (expected an SVG figure)",
            path.display()
        )
    })?;
    Ok(s[start..].trim_end().to_owned())
}

/// report.md rendered to HTML: tables, and each image that stands alone in its paragraph and
/// names an SVG file of `dir` drawn inline in a `<figure>`; returns the HTML and the SVG files
/// it inlined.
fn render_report(md: &str, dir: &Path) -> Result<(String, Vec<PathBuf>), String> {
    let events: Vec<Event> = Parser::new_ext(md, Options::ENABLE_TABLES).collect();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut used = Vec::new();
    let mut i = 0;
    while i < events.len() {
        // Paragraph, Image, alt text..., End(Image), End(Paragraph).
        if let (Event::Start(Tag::Paragraph), Some(Event::Start(Tag::Image { dest_url, .. }))) =
            (&events[i], events.get(i + 1))
        {
            let end = events[i + 2..]
                .iter()
                .position(|e| matches!(e, Event::End(TagEnd::Image)))
                .map(|p| i + 2 + p);
            let file = dir.join(dest_url.as_ref());
            if let Some(end) = end {
                if matches!(events.get(end + 1), Some(Event::End(TagEnd::Paragraph)))
                    && dest_url.ends_with(".svg")
                    && file.is_file()
                {
                    let alt: String = events[i + 2..end]
                        .iter()
                        .filter_map(|e| match e {
                            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                            _ => None,
                        })
                        .collect();
                    let svg = inline_svg(&file)?;
                    out.push(Event::Html(CowStr::from(format!(
                        "<figure>\n{svg}\n<figcaption>{} ({})</figcaption>\n</figure>\n",
                        HtmlEscape(&alt),
                        HtmlEscape(dest_url)
                    ))));
                    used.push(file);
                    i = end + 2;
                    continue;
                }
            }
        }
        out.push(events[i].clone());
        i += 1;
    }
    let mut h = String::new();
    pulldown_cmark::html::push_html(&mut h, style_tables(out).into_iter());
    Ok((h, used))
}

/// The verdict words of a report's own tables and the CSS class that colours their cell (the
/// words as the studies write them in report.md, case included).
const CELL_VERDICTS: [(&str, &str); 4] = [
    ("holds", "holds"),
    ("DOES NOT HOLD", "nothold"),
    ("does not hold", "nothold"),
    ("not decidable", "undecided"),
];

/// The report's tables in the event stream, styled: each table wrapped in a
/// `<div class="scroll">` (wide tables scroll instead of widening the page), and each body cell
/// without an alignment whose whole text is a verdict word of [`CELL_VERDICTS`] opened as
/// `<td class="...">` so the stylesheet colours it. Only the opening and closing tags the
/// wrapper and the classes need become `Event::Html`; every text stays an event that
/// pulldown-cmark escapes.
fn style_tables(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len() + 8);
    let mut aligns: Vec<Alignment> = Vec::new();
    let mut in_body = false;
    let mut cell = 0;
    for (i, e) in events.iter().enumerate() {
        match e {
            Event::Start(Tag::Table(a)) => {
                aligns.clone_from(a);
                in_body = false;
                out.push(Event::Html(CowStr::Borrowed("<div class=\"scroll\">")));
            }
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => cell = 0,
            Event::End(TagEnd::TableHead) => in_body = true,
            Event::End(TagEnd::TableCell) => cell += 1,
            Event::End(TagEnd::Table) => {
                // What pulldown-cmark writes for the end of a table (its html.rs, 0.13), with
                // the wrapper closed before the newline.
                out.push(Event::Html(CowStr::Borrowed("</tbody></table></div>\n")));
                continue;
            }
            Event::Start(Tag::TableCell)
                if in_body && matches!(aligns.get(cell), None | Some(Alignment::None)) =>
            {
                let text = cell_text(&events[i + 1..]);
                if let Some((_, class)) = CELL_VERDICTS
                    .iter()
                    .find(|(w, _)| text.as_deref() == Some(*w))
                {
                    out.push(Event::Html(CowStr::from(format!("<td class=\"{class}\">"))));
                    continue;
                }
            }
            _ => {}
        }
        out.push(e.clone());
    }
    out
}

/// The text of a table cell whose events (from just after its start) up to its end are all
/// plain text; `None` if anything else (emphasis, code, a link...) is in it.
fn cell_text(rest: &[Event<'_>]) -> Option<String> {
    let mut s = String::new();
    for e in rest {
        match e {
            Event::Text(t) => s.push_str(t),
            Event::End(TagEnd::TableCell) => return Some(s),
            _ => return None,
        }
    }
    None
}

/// The SVG files of a study folder and its direct subfolders, sorted.
fn svg_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let read = |d: &Path| std::fs::read_dir(d).map_err(|e| format!("{}: {e}", d.display()));
    for e in read(dir)? {
        let p = e.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if p.is_dir() {
            for e in read(&p)? {
                let q = e.map_err(|e| format!("{}: {e}", p.display()))?.path();
                if q.extension().is_some_and(|x| x == "svg") {
                    found.push(q);
                }
            }
        } else if p.extension().is_some_and(|x| x == "svg") {
            found.push(p);
        }
    }
    found.sort();
    Ok(found)
}

/// A figure of the study folder that report.md does not show, for `study.html`.
#[derive(Serialize)]
struct LooseFigure {
    svg: String,
    caption: String,
}

/// Writes `DIR/index.html` for the study whose outputs are in `dir` (its report.md, checks.csv
/// and SVG figures); `with_index`: link back to the all-studies index in the parent folder.
pub fn study_page(dir: &Path, study: &Study, with_index: bool) -> Result<PathBuf, String> {
    let report = dir.join("report.md");
    let md = std::fs::read_to_string(&report).map_err(|e| format!("{}: {e}", report.display()))?;
    // The quick-mode banner goes to the top of the page, above the verdicts it qualifies.
    let (banner, rest_md) = match md.strip_prefix(packetsim::studies::QUICK_BANNER) {
        Some(rest) => (
            render_report(packetsim::studies::QUICK_BANNER, dir)?.0,
            rest,
        ),
        None => (String::new(), md.as_str()),
    };
    let (body, used) = render_report(rest_md, dir)?;
    let mut figures = Vec::new();
    for p in svg_files(dir)?.into_iter().filter(|p| !used.contains(p)) {
        figures.push(LooseFigure {
            svg: inline_svg(&p)?,
            caption: p.strip_prefix(dir).unwrap_or(&p).display().to_string(),
        });
    }
    let page = render(
        "study.html",
        minijinja::context! {
            title => format!("packetsim reproduction: {}", study.title),
            style => STYLE,
            with_index,
            study_title => study.title,
            name => study.name,
            paper => packetsim::studies::paper(study.name).map(paper_value),
            banner,
            verdicts => verdict_table(&dir.join("checks.csv"))?,
            body,
            figures,
            glossary => glossary(Some(&md)),
        },
    )?;
    let out = dir.join("index.html");
    packetsim::report::write_atomic(&out, &page).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

/// A paper's source for the templates.
fn paper_value(p: &Paper) -> minijinja::Value {
    minijinja::context! {
        title => p.title, authors => p.authors, venue => p.venue, tool => p.tool, spec => p.spec,
    }
}

/// A verdict count of the index and the class that colours it when it is not 0.
#[derive(Serialize)]
struct Count {
    n: usize,
    class: &'static str,
}

/// Writes `out/index.html`, linking every study of `done` (each with its own index.html) with
/// its verdict counts in colour, the paper's source, and the glossary.
pub fn reproduce_index(
    out: &Path,
    done: &[(&Study, StudyOutcome)],
    quick: bool,
) -> Result<PathBuf, String> {
    let studies: Vec<minijinja::Value> = done
        .iter()
        .map(|(s, o)| {
            let counts = [
                (o.paper.holds, "holds"),
                (o.paper.fails, "nothold"),
                (o.paper.undecided, "undecided"),
                (o.beyond.holds, "holds"),
                (o.beyond.fails, "nothold"),
                (o.beyond.undecided, "undecided"),
            ]
            .map(|(n, class)| Count { n, class });
            minijinja::context! {
                name => s.name,
                title => s.title,
                paper => packetsim::studies::paper(s.name).map(paper_value),
                counts,
            }
        })
        .collect();
    let page = render(
        "index.html",
        minijinja::context! {
            title => "packetsim: reproduced studies",
            style => STYLE,
            quick,
            studies,
            glossary => glossary(None),
        },
    )?;
    let path = out.join("index.html");
    packetsim::report::write_atomic(&path, &page)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_records_follow_the_quoting_the_studies_write() {
        let r = csv_records("id,note\nS1,\"a, b \"\"c\"\"\"\nS2,plain\n");
        assert_eq!(
            r,
            vec![
                vec!["id".to_string(), "note".into()],
                vec!["S1".into(), "a, b \"c\"".into()],
                vec!["S2".into(), "plain".into()],
            ]
        );
    }

    #[test]
    fn the_ns2_column_says_same_or_the_changed_verdict() {
        // Issue 14: checks.csv of a study also run with profile = "ns2".
        let d = std::env::temp_dir().join(format!("packetsim-ns2col-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("checks.csv");
        std::fs::write(
            &p,
            "id,verdict,claim,ns2_verdict\nS1,holds,a,holds\nS2,holds,b,does not hold\n\
             S3,holds,c,\n",
        )
        .unwrap();
        let h = verdict_table(&p).unwrap().unwrap();
        assert!(
            h.contains("<th>verdict</th><th>as ns-2.35 would</th><th>paper's"),
            "{h}"
        );
        assert!(
            h.contains("<td>S1</td><td class=\"holds\">holds</td><td>same</td><td>a</td>"),
            "{h}"
        );
        assert!(h.contains(
            "<td>S2</td><td class=\"holds\">holds</td><td class=\"nothold\">does not hold</td>"
        ));
        assert!(h.contains("<td>not run</td><td>c</td>"), "{h}");
        // Without the column the table has three columns, as before.
        std::fs::write(&p, "id,verdict,claim\nS1,holds,a\n").unwrap();
        let h = verdict_table(&p).unwrap().unwrap();
        assert!(!h.contains("ns-2.35"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_index_counts_paper_claims_apart_and_escapes_every_inserted_value() {
        // Issue 35 item 6 (paper claims apart from extensions) and issue 37 item 9 (a template
        // engine that escapes what it inserts, not string building).
        use packetsim::studies::checks::Counts;
        let d = std::env::temp_dir().join(format!("packetsim-index-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let study = &packetsim::studies::STUDIES[0];
        let outcome = StudyOutcome {
            name: study.name,
            report: d.join("report.md"),
            passed: 9,
            failed: 2,
            undecided: 1,
            paper: Counts {
                holds: 7,
                fails: 0,
                undecided: 1,
            },
            beyond: Counts {
                holds: 2,
                fails: 2,
                undecided: 0,
            },
        };
        let page = std::fs::read_to_string(reproduce_index(&d, &[(study, outcome)], true).unwrap())
            .unwrap();
        let cells: Vec<&str> = page
            .lines()
            .find(|l| l.contains(&format!("<a href=\"{}/index.html\">", study.name)))
            .expect("the study's row")
            .split("</td>")
            .skip(2)
            .filter(|c| c.contains("text-align"))
            .collect();
        let shown: Vec<String> = cells
            .iter()
            .map(|c| {
                let class = c
                    .split("class=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap();
                format!("{class}:{}", c.rsplit('>').next().unwrap())
            })
            .collect();
        // A count of 0 is not coloured.
        assert_eq!(
            shown,
            ["holds:7", ":0", "undecided:1", "holds:2", "nothold:2", ":0"],
            "{page}"
        );
        assert!(page.contains("Quick mode"), "{page}");
        assert!(page.ends_with("</body>\n</html>\n"));
        // A value with markup in it is escaped, never inserted as markup.
        let esc = render(
            "glossary.html",
            minijinja::context! { glossary => [Term { term: "<b>", meaning: "a & b" }] },
        )
        .unwrap();
        assert_eq!(esc, "<dl>\n<dt>&lt;b&gt;</dt><dd>a &amp; b</dd>\n</dl>\n");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn terms_are_found_as_whole_words_only() {
        assert!(mentions("a T3 timeout", "T3"));
        assert!(!mentions("T30 and RT3", "T3"));
        assert!(mentions("(IN/OUT)", "IN"));
        assert!(!mentions("INFERRED", "IN"));
        assert!(!mentions("RTX_TO_ALT", "ALT"));
    }

    #[test]
    fn a_standalone_svg_image_is_inlined_and_verdict_cells_coloured() {
        let d = std::env::temp_dir().join(format!("packetsim-shtml-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("f.svg"),
            "<?xml version=\"1.0\"?>\n<svg><rect/></svg>\n",
        )
        .unwrap();
        let md =
            "# R\n\n| check | verdict |\n|---|---|\n| S1 | holds |\n| S2 | DOES NOT HOLD |\n\n\
                  ![Fig 1](f.svg)\n\ntext ![inline](f.svg) text\n\n![absent](g.svg)\n";
        let (h, used) = render_report(md, &d).unwrap();
        assert_eq!(used, vec![d.join("f.svg")]);
        assert!(
            h.contains("<figure>\n<svg><rect/></svg>\n<figcaption>Fig 1 (f.svg)</figcaption>"),
            "{h}"
        );
        assert_eq!(h.matches("<figure>").count(), 1, "{h}");
        assert!(!h.contains("<?xml"));
        assert!(h.contains("<td class=\"holds\">holds</td>"), "{h}");
        assert!(
            h.contains("<td class=\"nothold\">DOES NOT HOLD</td>"),
            "{h}"
        );
        assert!(h.contains("<div class=\"scroll\"><table>"));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn report_tables_are_wrapped_and_verdict_cells_coloured_in_the_event_stream() {
        let d = std::env::temp_dir().join(format!("packetsim-shtml-t-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        // A header cell, a right-aligned cell, emphasis and code keep their plain tags; only
        // whole-text verdict cells of the body get a class. Two tables: the state resets.
        let md = "| holds | verdict | n |\n|---|---|--:|\n| S1 | holds | holds |\n\
                  | S2 | *holds* | 3 |\n| S3 | `holds` | 4 |\n| S4 | not decidable | 5 |\n\n\
                  a <b>x</b> & holds\n\n| v |\n|---|\n| does not hold |\n| holds now |\n";
        let (h, used) = render_report(md, &d).unwrap();
        assert!(used.is_empty());
        let want = "<div class=\"scroll\"><table><thead><tr><th>holds</th><th>verdict</th>\
                    <th style=\"text-align: right\">n</th></tr></thead><tbody>\n\
                    <tr><td>S1</td><td class=\"holds\">holds</td>\
                    <td style=\"text-align: right\">holds</td></tr>\n\
                    <tr><td>S2</td><td><em>holds</em></td><td style=\"text-align: right\">3</td></tr>\n\
                    <tr><td>S3</td><td><code>holds</code></td><td style=\"text-align: right\">4</td></tr>\n\
                    <tr><td>S4</td><td class=\"undecided\">not decidable</td>\
                    <td style=\"text-align: right\">5</td></tr>\n\
                    </tbody></table></div>\n\
                    <p>a <b>x</b> &amp; holds</p>\n\
                    <div class=\"scroll\"><table><thead><tr><th>v</th></tr></thead><tbody>\n\
                    <tr><td class=\"nothold\">does not hold</td></tr>\n\
                    <tr><td>holds now</td></tr>\n\
                    </tbody></table></div>\n";
        assert_eq!(h, want);
        let _ = std::fs::remove_dir_all(&d);
    }
}

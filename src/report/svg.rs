//! The sweep chart as a self-contained SVG: false-alarm rate against detection, one curve per
//! fault type, each with its Wilson interval as a band.
//!
//! Written by hand rather than with plotters: plotters lays out text through a font backend
//! (font-kit and system fonts) that minimal machines and CI images lack; this chart needs lines,
//! polygons and a few labels, which SVG does natively.

use crate::stats::sweep::SweepPoint;
use crate::text::escape::escape_markup;
use std::fmt::Write;

const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// Renders the chart; `marker` is a recommended threshold's point, if any.
/// Where the plot area is in the chart.
#[derive(Clone, Copy)]
struct Frame {
    left: f64,
    top: f64,
    pw: f64,
    ph: f64,
    h: f64,
}

/// The grid lines, tick labels and axis titles.
fn grid(o: &mut String, f: &Frame) {
    let Frame {
        left,
        top,
        pw,
        ph,
        h,
    } = *f;
    let x = |fa: f64| left + fa * pw;
    let y = |d: f64| top + (1.0 - d) * ph;
    for i in 0..=4 {
        let v = i as f64 / 4.0;
        let _ = writeln!(
            o,
            r##"<line x1="{:.1}" y1="{top}" x2="{:.1}" y2="{:.1}" stroke="#e5e5e5"/><line x1="{left}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#e5e5e5"/>"##,
            x(v),
            x(v),
            top + ph,
            y(v),
            left + pw,
            y(v)
        );
        let _ = writeln!(
            o,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{v:.2}</text>"#,
            x(v),
            top + ph + 18.0
        );
        let _ = writeln!(
            o,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{v:.2}</text>"#,
            left - 6.0,
            y(v) + 4.0
        );
    }
    let _ = writeln!(
        o,
        r##"<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
    );
    let _ = writeln!(
        o,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">false-alarm rate on verified claims</text>"#,
        left + pw / 2.0,
        h - 14.0
    );
    let _ = writeln!(
        o,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">detection (catch rate)</text>"#,
        top + ph / 2.0
    );
}

pub fn sweep_chart(
    title: &str,
    points: &[SweepPoint],
    marker: Option<&SweepPoint>,
    cap: Option<usize>,
) -> String {
    let (w, h) = (720.0, 460.0);
    let (left, right, top, bottom) = (64.0, 190.0, 40.0, 56.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let x = |fa: f64| left + fa * pw;
    let y = |d: f64| top + (1.0 - d) * ph;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(o, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        o,
        r#"<text x="{left}" y="24" font-size="15" font-weight="bold">{}</text>"#,
        escape_markup(title)
    );
    grid(
        &mut o,
        &Frame {
            left,
            top,
            pw,
            ph,
            h,
        },
    );
    // fault types with fewer than 3 labelled faults would draw bands over the whole chart; they
    // stay in the tables and in "all faults"
    let mut types: Vec<String> = points
        .first()
        .map(|p| {
            p.by_fault_type
                .iter()
                .filter(|(_, r)| r.n >= 3)
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    types.push("all faults".into());
    let frame = Frame {
        left,
        top,
        pw,
        ph,
        h,
    };
    for (i, ft) in types.iter().enumerate() {
        curve(&mut o, &frame, points, i, ft, cap);
    }
    if let Some(m) = marker {
        let (mx, my) = (
            x(m.false_alarms.rate.unwrap_or(0.0)),
            y(m.detection.rate.unwrap_or(0.0)),
        );
        let _ = writeln!(
            o,
            r##"<circle cx="{mx:.1}" cy="{my:.1}" r="6" fill="none" stroke="#000" stroke-width="2"/><text x="{:.1}" y="{:.1}">threshold {:.3}</text>"##,
            mx + 9.0,
            my - 8.0,
            m.threshold
        );
    }
    let _ = writeln!(
        o,
        r##"<text x="{left}" y="{:.1}" fill="#555" font-size="11">shaded bands: Wilson intervals of detection over {} thresholds</text>"##,
        h - 2.0,
        points.len()
    );
    o.push_str("</svg>\n");
    o
}

/// One fault type's curve (`"all faults"`: detection over all faults), the `i`th: its Wilson band
/// and line over the thresholds, and its entry in the legend.
fn curve(o: &mut String, f: &Frame, points: &[SweepPoint], i: usize, ft: &str, cap: Option<usize>) {
    let (left, top, pw, ph) = (f.left, f.top, f.pw, f.ph);
    let x = |fa: f64| left + fa * pw;
    let y = |d: f64| top + (1.0 - d) * ph;
    let color = PALETTE[i % PALETTE.len()];
    let rate = |p: &SweepPoint| {
        if ft == "all faults" {
            p.detection
        } else {
            p.by_fault_type[ft]
        }
    };
    let mut pts: Vec<(f64, f64, f64, f64)> = points
        .iter()
        .map(|p| {
            let r = rate(p);
            (
                p.false_alarms.rate.unwrap_or(0.0),
                r.rate.unwrap_or(0.0),
                r.ci_low,
                r.ci_high,
            )
        })
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    // the band: upper bounds left to right, then lower bounds right to left
    let band: Vec<String> = pts
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.3)))
        .chain(
            pts.iter()
                .rev()
                .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.2))),
        )
        .collect();
    let line: Vec<String> = pts
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1)))
        .collect();
    let width = if ft == "all faults" { 3 } else { 2 };
    let _ = writeln!(
        o,
        r#"<polygon points="{}" fill="{color}" fill-opacity="0.12" stroke="none"/>"#,
        band.join(" ")
    );
    let _ = writeln!(
        o,
        r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="{width}"/>"#,
        line.join(" ")
    );
    let ly = top + 10.0 + i as f64 * 20.0;
    let lx = left + pw + 16.0;
    let _ = writeln!(
        o,
        r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{color}" stroke-width="{width}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
        lx + 22.0,
        lx + 28.0,
        ly + 4.0,
        // the sweep counts all faults pooled, and the legend says so
        escape_markup(&if ft == "all faults" {
            crate::engine::mix::label("pooled", cap)
        } else {
            ft.to_string()
        })
    );
}

//! The HTML report: the terminal summary and SVG charts drawn with `plotters` (win rate per
//! seat with interval whiskers, scores per seat, game length, lead over rounds, card impact), in one file with
//! no outside resources.

use super::report::Report;
use super::tally::{Counts, Tally};
use plotters::prelude::*;

const W: u32 = 720;
const H: u32 = 300;

type Chart = Result<String, String>;

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Win rate per seat: a bar, and a whisker for its 95% interval.
fn win_rates(r: &Report) -> Chart {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let n = r.seats.len().max(1) as f64;
        let top = r
            .seats
            .iter()
            .map(|s| s.win_rate.high)
            .fold(0.1f64, f64::max)
            .min(1.0);
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..n, 0f64..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .x_desc("seat")
            .y_desc("win rate")
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()
            .map_err(err)?;
        for (i, s) in r.seats.iter().enumerate() {
            let x = i as f64;
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x + 0.2, 0.0), (x + 0.8, s.win_rate.value)],
                    BLUE.mix(0.5).filled(),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x + 0.5, s.win_rate.low), (x + 0.5, s.win_rate.high)],
                    BLACK.stroke_width(2),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    s.seat.clone(),
                    (x + 0.45, 0.0),
                    ("sans-serif", 14),
                )))
                .map_err(err)?;
        }
        let fair = 1.0 / n;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, fair), (n, fair)],
                RED.stroke_width(1),
            )))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Lead over rounds: the share of games in which the eventual winner was in front alone at
/// each round's end.
fn lead_over_rounds(leading: &[f64]) -> Chart {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let n = leading.len().max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0.5f64..n + 0.5, 0f64..1.0)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("round")
            .x_labels(leading.len().clamp(1, 20))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_desc("winner in front")
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()
            .map_err(err)?;
        let points: Vec<(f64, f64)> = leading
            .iter()
            .enumerate()
            .map(|(i, x)| (i as f64 + 1.0, *x))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), BLUE.stroke_width(2)))
            .map_err(err)?;
        chart
            .draw_series(points.into_iter().map(|p| Circle::new(p, 4, BLUE.filled())))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Bins over `lo..=hi` for a histogram: at most `most` of them, each `width` values wide, the
/// first starting at `lo`, so that every value has a bin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bins {
    pub lo: i128,
    pub width: i128,
    /// Games per bin, in order.
    pub counts: Vec<u64>,
}

/// Sort each game's value into bins that cover every value from the smallest to the largest:
/// `width` is the range divided by `most`, rounded up, so no value falls past the last bin.
/// The arithmetic is in `i128`: a shard may hold any numbers, `i64::MIN` and `i64::MAX` together
/// included.
pub fn bins(values: &Counts, most: u32) -> Bins {
    let lo = i128::from(values.keys().next().copied().unwrap_or(0));
    let hi = i128::from(values.keys().next_back().copied().unwrap_or(0));
    let most = i128::from(most.max(1));
    // Values in the range: hi - lo + 1 (at most 2^64, no overflow in i128).
    let span = hi - lo + 1;
    let width = ((span + most - 1) / most).max(1);
    let n = usize::try_from((span + width - 1) / width)
        .unwrap_or(1)
        .max(1);
    let mut counts = vec![0u64; n];
    for (v, k) in values {
        let b = usize::try_from((i128::from(*v) - lo) / width).unwrap_or(usize::MAX);
        // Every value is in the range, so every bin index is too; `min` keeps it safe anyway.
        let b = b.min(n - 1);
        if let Some(c) = counts.get_mut(b) {
            *c = c.saturating_add(*k);
        }
    }
    Bins { lo, width, counts }
}

/// The most bins a histogram is drawn with.
const MAX_BINS: u32 = 30;

/// A histogram of one number per game, from how many games took each value: bins that cover
/// the whole range (`bins`), axes labelled with what is counted and `games`.
fn histogram(values: &Counts, what: &str) -> Chart {
    let b = bins(values, MAX_BINS);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let lo = b.lo as f64;
        let end = (b.lo + b.width * b.counts.len() as i128) as f64;
        let most = b.counts.iter().copied().max().unwrap_or(1).max(1);
        let width = b.width;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(lo..end, 0u64..most.saturating_add(most / 10 + 1))
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(if width > 1 {
                format!("{what} (bins of {width})")
            } else {
                what.to_string()
            })
            // No more ticks than bins: whole numbers, each written once.
            .x_labels(b.counts.len().clamp(2, 12) + 1)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_desc("games")
            .draw()
            .map_err(err)?;
        chart
            .draw_series(b.counts.iter().enumerate().map(|(i, &c)| {
                let x0 = (b.lo + i as i128 * width) as f64;
                let w = width as f64;
                Rectangle::new(
                    [(x0 + w * 0.05, 0), (x0 + w * 0.95, c)],
                    GREEN.mix(0.6).filled(),
                )
            }))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The change a card's row of the impact chart shows: the seat's or group's whose win rate
/// moved most without it.
fn impact_row(i: &super::report::Impact) -> Option<&super::report::SeatDelta> {
    i.seats.iter().chain(&i.groups).max_by(|a, b| {
        a.win_rate
            .value
            .abs()
            .partial_cmp(&b.win_rate.value.abs())
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// Each card's largest change of a win rate (a seat's or a group's) when it is taken out: a
/// bar, a whisker for its 95% interval, and who it is, by the card's name.
fn impact(r: &Report) -> Chart {
    let mut svg = String::new();
    {
        let rows = r.impact.len().max(1);
        let height = (70 + 26 * rows) as u32;
        let root = SVGBackend::with_string(&mut svg, (W, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let m = r
            .impact
            .iter()
            .filter_map(impact_row)
            .map(|d| d.win_rate.low.abs().max(d.win_rate.high.abs()))
            .fold(0.01f64, f64::max)
            * 1.05;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(10)
            .build_cartesian_2d(-m..m, 0f64..rows as f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(9)
            .x_label_formatter(&|v| {
                let p = v * 100.0;
                if p.abs() < 0.05 {
                    "0".to_string()
                } else if m * 100.0 >= 10.0 {
                    format!("{p:+.0}")
                } else {
                    format!("{p:+.1}")
                }
            })
            .x_desc("change of a win rate without the card (points; whisker: 95% interval)")
            .draw()
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 0.0), (0.0, rows as f64)],
                BLACK.stroke_width(1),
            )))
            .map_err(err)?;
        for (k, i) in r.impact.iter().enumerate() {
            let y = (rows - 1 - k) as f64;
            let Some(d) = impact_row(i) else { continue };
            let w = &d.win_rate;
            let colour = if w.value >= 0.0 { BLUE } else { RED };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y + 0.2), (w.value, y + 0.8)],
                    colour.mix(0.45).filled(),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(w.low, y + 0.5), (w.high, y + 0.5)],
                    BLACK.stroke_width(2),
                )))
                .map_err(err)?;
            let mark = if d.significant { " *" } else { "" };
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("@{}: {}{mark}", i.card, d.seat),
                    (-m * 0.98, y + 0.35),
                    ("sans-serif", 12),
                )))
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Exposure as one table: per card its verdict, the games it entered play in, and its
/// strongest contrast with its interval.
fn exposure_table(r: &Report) -> String {
    let rows: Vec<Vec<String>> = r
        .exposure
        .iter()
        .map(|e| {
            let mut row = vec![e.verdict.clone(), format!("{} of {}", e.entered, e.games)];
            match e.contrasts.first() {
                Some(c) => {
                    let scale = if c.rate { 100.0 } else { 1.0 };
                    row.push(format!("{} {}", c.who, c.measure));
                    row.push(format!(
                        "{:+.2} ({:+.2} – {:+.2})",
                        c.difference.value * scale,
                        c.difference.low * scale,
                        c.difference.high * scale
                    ));
                }
                None => row.extend(["–".to_string(), "–".to_string()]),
            }
            row.push(if e.significant { "yes" } else { "" }.to_string());
            row
        })
        .collect();
    table(
        &[
            "verdict",
            "entered play",
            "strongest contrast",
            "with minus without (95% interval; rates in points)",
            "significant",
        ],
        &rows,
    )
}

/// The impact of `--impact` as tables: per card its verdict, and every seat's and group's
/// change, largest first.
fn impact_tables(r: &Report) -> String {
    let mut h = String::new();
    for i in &r.impact {
        h.push_str(&format!("<h3>{}</h3>\n", escape(&i.verdict)));
        let mut all: Vec<&super::report::SeatDelta> = i.seats.iter().chain(&i.groups).collect();
        all.sort_by(|a, b| {
            b.win_rate
                .value
                .abs()
                .partial_cmp(&a.win_rate.value.abs())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let rows: Vec<Vec<String>> = all
            .iter()
            .map(|d| {
                let w = &d.win_rate;
                let mut row = vec![
                    d.seat.clone(),
                    format!("{:+.1}", w.value * 100.0),
                    format!("{:+.1} – {:+.1}", w.low * 100.0, w.high * 100.0),
                ];
                match &d.mean_score {
                    Some(m) => {
                        row.push(format!("{:+.2}", m.value));
                        row.push(format!("{:+.2} – {:+.2}", m.low, m.high));
                    }
                    None => row.extend(["–".to_string(), "–".to_string()]),
                }
                row.push(if d.significant { "yes" } else { "" }.to_string());
                row
            })
            .collect();
        h.push_str(&table(
            &[
                "seat or group",
                "win rate (points)",
                "95% interval",
                "mean score",
                "95% interval",
                "interval excludes 0",
            ],
            &rows,
        ));
    }
    h
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A percentage for a table cell.
fn pc(x: f64) -> String {
    super::report::pct(x).trim().to_string()
}

/// An HTML table: a header row and rows of cells (escaped here); numbers align right.
fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut t = String::from("<table>\n<tr>");
    for h in head {
        t.push_str(&format!("<th>{}</th>", escape(h)));
    }
    t.push_str("</tr>\n");
    for row in rows {
        t.push_str("<tr>");
        for c in row {
            let numeric = c
                .chars()
                .next()
                .is_some_and(|ch| ch.is_ascii_digit() || "+-−.".contains(ch));
            if numeric {
                t.push_str(&format!("<td class=\"n\">{}</td>", escape(c)));
            } else {
                t.push_str(&format!("<td>{}</td>", escape(c)));
            }
        }
        t.push_str("</tr>\n");
    }
    t.push_str("</table>\n");
    t
}

/// The summary as HTML: what was played, a table per seat and per grouping, and the other
/// figures as a list (the terminal's text, in tables that wrap instead of scrolling).
fn summary(r: &Report) -> String {
    let mut h = String::new();
    h.push_str(&format!(
        "<p class=\"what\">{}</p>\n",
        escape(&super::report::headline(r))
    ));
    if let (Some((seed, e)), Some(replay)) = (&r.first_error, &r.replay) {
        h.push_str(&format!(
            "<p class=\"error\">{} games stopped on an error; the first, seed {seed}: {}<br>replay it, with its choice log: <code>{}</code></p>\n",
            r.errors,
            escape(e),
            escape(replay)
        ));
    }
    let out = |seat: &str| {
        r.solo
            .as_ref()
            .is_some_and(|s| s.sat_out.iter().any(|x| x == seat))
    };
    let rows: Vec<Vec<String>> = r
        .seats
        .iter()
        .filter(|s| !out(&s.seat))
        .map(|s| {
            let mut row = vec![
                s.seat.clone(),
                s.wins.to_string(),
                pc(s.win_rate.value),
                format!("{} – {}", pc(s.win_rate.low), pc(s.win_rate.high)),
                s.shared_wins.to_string(),
            ];
            match &s.score {
                Some(sc) => {
                    row.push(format!("{:.1}", sc.mean));
                    row.push(format!("{:.1}", sc.sd));
                    row.push(format!("{} / {} / {}", sc.p10, sc.p50, sc.p90));
                }
                None => row.extend(["–".to_string(), "–".to_string(), "–".to_string()]),
            }
            row
        })
        .collect();
    h.push_str("<h2>Seats</h2>\n");
    h.push_str(&table(
        &[
            "seat",
            "wins",
            "win rate",
            "95% interval",
            "shared wins",
            "mean score",
            "sd",
            "p10 / p50 / p90",
        ],
        &rows,
    ));
    for g in &r.groups {
        let rows: Vec<Vec<String>> = g
            .groups
            .iter()
            .map(|x| {
                vec![
                    x.group.clone(),
                    x.games.to_string(),
                    x.wins.to_string(),
                    pc(x.win_rate.value),
                    format!("{} – {}", pc(x.win_rate.low), pc(x.win_rate.high)),
                    x.shared_wins.to_string(),
                ]
            })
            .collect();
        h.push_str(&format!("<h2>By {}</h2>\n", escape(&g.name)));
        h.push_str(&table(
            &[
                "group",
                "games",
                "wins",
                "win rate",
                "95% interval",
                "shared wins",
            ],
            &rows,
        ));
    }
    if !r.figures.is_empty() {
        let rows: Vec<Vec<String>> = r
            .figures
            .iter()
            .map(|f| {
                let (of, share, interval) = match (&f.of, &f.share) {
                    (Some(n), Some(sh)) => (
                        n.to_string(),
                        pc(sh.value),
                        format!("{} – {}", pc(sh.low), pc(sh.high)),
                    ),
                    (Some(n), None) => (n.to_string(), "–".to_string(), "–".to_string()),
                    (None, _) => ("–".to_string(), "–".to_string(), "–".to_string()),
                };
                vec![
                    f.words.clone(),
                    f.games.to_string(),
                    f.total.to_string(),
                    of,
                    share,
                    interval,
                    format!("{:.1}", f.per_game.mean),
                ]
            })
            .collect();
        h.push_str("<h2>The game's figures</h2>\n");
        h.push_str(&table(
            &[
                "figure",
                "games",
                "total",
                "of",
                "share",
                "95% interval",
                "mean a game",
            ],
            &rows,
        ));
    }
    let rest = super::report::figures(r);
    if !rest.is_empty() {
        h.push_str("<h2>Figures</h2>\n<ul>\n");
        for l in rest {
            h.push_str(&format!("<li>{}</li>\n", escape(&l)));
        }
        h.push_str("</ul>\n");
    }
    h
}

/// The whole report as one HTML page.
pub fn html(r: &Report, t: &Tally) -> Result<String, String> {
    let top = r
        .seats
        .iter()
        .map(|s| s.win_rate.high)
        .fold(0.1f64, f64::max)
        .min(1.0);
    let seats: Vec<&str> = r.seats.iter().map(|s| s.seat.as_str()).collect();
    let mut sections = Vec::new();
    let decided = r.seats.iter().any(|s| s.wins > 0 || s.shared_wins > 0);
    if decided {
        sections.push((
            format!(
                "Win rate per seat (bars: {}, left to right; whiskers: 95% interval; red line: fair share; height 0 to {:.0}%)",
                seats.join(", "),
                top * 100.0
            ),
            win_rates(r)?,
        ));
    }
    sections.push((
        format!(
            "Game length in choices (all {} games)",
            crate::simulate::tally::total(&t.choices)
        ),
        histogram(&t.choices, "choices per game")?,
    ));
    if r.seats.iter().any(|s| s.score.is_some()) {
        for (k, s) in r.seats.iter().enumerate() {
            let none = Counts::new();
            let scores = t.scores.get(k).unwrap_or(&none);
            sections.push((
                format!(
                    "Scores of {} (all {} games)",
                    s.seat,
                    crate::simulate::tally::total(scores)
                ),
                histogram(scores, &format!("score of {}", s.seat))?,
            ));
        }
    }
    if let Some(l) = &r.leads {
        sections.push((
            "Lead over rounds: games in which the eventual winner was in front alone at each round's end".to_string(),
            lead_over_rounds(&l.winner_leading)?,
        ));
    }
    if !r.impact.is_empty() {
        sections.insert(
            0,
            (
                format!(
                    "Card impact of {} cards, largest first (bars: the largest change of a seat's or group's win rate without the card, whiskers its 95% interval; blue up, red down; * the interval excludes 0)",
                    r.impact.len()
                ),
                format!("{}{}", impact(r)?, impact_tables(r)),
            ),
        );
    }
    if !r.exposure.is_empty() {
        sections.insert(
            0,
            (
                format!(
                    "Card exposure of {} cards, strongest first: the seats and groups that got the card against those that got another of its kind",
                    r.exposure.len()
                ),
                exposure_table(r),
            ),
        );
    }
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rules simulate</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}table{border-collapse:collapse;margin:0.5em 0}th,td{border:1px solid #ccc;padding:0.2em 0.6em}th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}p.error{color:#a00}svg{max-width:100%;height:auto}</style></head><body>\n",
    );
    page.push_str(&format!("<h1>{}</h1>\n", escape(&r.game)));
    page.push_str(&summary(r));
    for w in r.figure_warnings.iter().chain(&r.impact_warnings) {
        page.push_str(&format!("<p class=\"error\">warning: {}</p>\n", escape(w)));
    }
    if !decided {
        page.push_str("<p>No game had a winner (the game declares no <code>score</code>, or every game ended without one): there is no win-rate chart.</p>\n");
    }
    for (title, svg) in sections {
        page.push_str(&format!("<h2>{}</h2>\n{svg}\n", escape(&title)));
    }
    page.push_str("</body></html>\n");
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(values: &[(i64, u64)]) -> Counts {
        values.iter().copied().collect()
    }

    /// Every game is in some bin, whatever the range: the bins sum to the games.
    #[test]
    fn the_bins_hold_every_game() {
        let cases = [
            counts(&[(0, 3), (1, 4), (2, 5)]),
            counts(&[(-7, 1), (0, 10), (659, 2), (1000, 659), (31, 1)]),
            counts(&[(5, 9)]),
            counts(&[(i64::MIN, 1), (0, 1), (i64::MAX, 1)]),
            counts(&[(0, 1), (29, 1), (30, 1), (31, 1), (61, 1)]),
            counts(&[]),
        ];
        for c in &cases {
            let total: u64 = c.values().sum();
            let b = bins(c, MAX_BINS);
            assert!(
                b.counts.len() as u32 <= MAX_BINS && !b.counts.is_empty(),
                "{c:?}: {b:?}"
            );
            assert_eq!(b.counts.iter().sum::<u64>(), total, "{c:?}: {b:?}");
            // The last value lies in the last bin's range.
            if let Some(&hi) = c.keys().next_back() {
                let end = b.lo + b.width * b.counts.len() as i128;
                assert!(i128::from(hi) < end, "{c:?}: {b:?}");
            }
        }
        // 62 values in 30 bins: width 3 (2 would leave 61 out, as integer division did).
        let b = bins(&cases[4], MAX_BINS);
        assert_eq!((b.lo, b.width, b.counts.len()), (0, 3, 21));
        assert_eq!(b.counts[20], 1);
    }
}

//! The HTML report: the terminal summary and SVG charts drawn with `plotters` (win rate per
//! seat with interval whiskers, scores per seat, game length, lead over rounds, card impact), in one file with
//! no outside resources.

use super::report::{text, Report};
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

/// A histogram of one number per game, from how many games took each value. The arithmetic is
/// in `i128`: a shard may hold any numbers, `i64::MIN` and `i64::MAX` together included.
fn histogram(values: &Counts, what: &str) -> Chart {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let lo = i128::from(values.keys().next().copied().unwrap_or(0));
        let hi = i128::from(values.keys().next_back().copied().unwrap_or(0)).max(lo + 1);
        let buckets: i128 = 30;
        let width = ((hi - lo) / buckets).max(1);
        let mut counts = vec![0u64; (buckets + 2) as usize];
        for (v, n) in values {
            let b = usize::try_from((i128::from(*v) - lo) / width).unwrap_or(usize::MAX);
            if let Some(c) = counts.get_mut(b) {
                *c = c.saturating_add(*n);
            }
        }
        let most = counts.iter().copied().max().unwrap_or(1).max(1);
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(lo as f64..(hi + width) as f64, 0u64..most.saturating_add(1))
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc(what)
            .y_desc("games")
            .draw()
            .map_err(err)?;
        chart
            .draw_series(counts.iter().enumerate().map(|(b, &c)| {
                let x0 = (lo + b as i128 * width) as f64;
                Rectangle::new(
                    [(x0, 0), (x0 + width as f64 * 0.9, c)],
                    GREEN.mix(0.6).filled(),
                )
            }))
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Each card's largest change of a seat's win rate when it is taken out.
fn impact(r: &Report) -> Chart {
    let mut svg = String::new();
    {
        let rows = r.impact.len().max(1);
        let height = (40 + 22 * rows) as u32;
        let root = SVGBackend::with_string(&mut svg, (W, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let m = r
            .impact
            .iter()
            .map(|i| i.largest.abs())
            .fold(0.01f64, f64::max);
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(10)
            .build_cartesian_2d(-m..m, 0f64..rows as f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_label_formatter(&|v| format!("{:+.0}", v * 100.0))
            .x_desc("largest change of a seat's win rate without the card (points)")
            .draw()
            .map_err(err)?;
        for (k, i) in r.impact.iter().enumerate() {
            let y = (rows - 1 - k) as f64;
            let colour = if i.largest >= 0.0 { BLUE } else { RED };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y + 0.15), (i.largest, y + 0.85)],
                    colour.mix(0.5).filled(),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("@{}", i.card),
                    (-m * 0.98, y + 0.3),
                    ("sans-serif", 12),
                )))
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
    let mut sections = vec![
        (
            format!(
                "Win rate per seat (bars: {}, left to right; whiskers: 95% interval; red line: fair share; height 0 to {:.0}%)",
                seats.join(", "),
                top * 100.0
            ),
            win_rates(r)?,
        ),
        (
            "Game length in choices".to_string(),
            histogram(&t.choices, "choices")?,
        ),
    ];
    if r.seats.iter().any(|s| s.score.is_some()) {
        for (k, s) in r.seats.iter().enumerate() {
            let none = Counts::new();
            let scores = t.scores.get(k).unwrap_or(&none);
            sections.push((format!("Scores of {}", s.seat), histogram(scores, "score")?));
        }
    }
    if let Some(l) = &r.leads {
        sections.push((
            "Lead over rounds: games in which the eventual winner was in front alone at each round's end".to_string(),
            lead_over_rounds(&l.winner_leading)?,
        ));
    }
    if !r.impact.is_empty() {
        let order: Vec<String> = r.impact.iter().map(|i| format!("@{}", i.card)).collect();
        sections.push((
            format!(
                "Card impact, top to bottom: {} (bars: the largest change of a seat's win rate without the card; blue up, red down)",
                order.join(", ")
            ),
            impact(r)?,
        ));
    }
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>rules simulate</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}pre{background:#f4f4f4;padding:1em;overflow-x:auto}</style></head><body>\n",
    );
    page.push_str(&format!(
        "<h1>{}</h1>\n<pre>{}</pre>\n",
        escape(&r.game),
        escape(&text(r))
    ));
    for (title, svg) in sections {
        page.push_str(&format!("<h2>{}</h2>\n{svg}\n", escape(&title)));
    }
    page.push_str("</body></html>\n");
    Ok(page)
}

//! The SVG plot: throughput against request size, one line per engine/path/algorithm,
//! modelled board time on the left, host real time on the right (plotters, SVG backend
//! only: no font files, no system libraries).

use std::path::Path;

use plotters::prelude::*;

use super::measure::Measured;
use super::report::Clock;

/// Draws `ms` into the SVG file `path`.
pub fn svg(ms: &[Measured], path: &Path) -> Result<(), String> {
    draw(ms, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Distinct colours (Tableau 10), told apart also by the markers below.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// A size as a reader says it: 16 B, 1 KiB, 16 KiB.
pub fn bytes_label(n: f64) -> String {
    let n = n.round() as u64;
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1024 && n.is_multiple_of(1024) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

/// One line of a chart: throughput (MB/s) at each request size (bytes).
pub type Points = Vec<(usize, f64)>;

fn draw(ms: &[Measured], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let panel = |clock: Clock| -> Vec<Points> {
        ms.iter()
            .map(|m| {
                let measured = m.samples.iter().filter(|s| s.measured());
                measured
                    .map(|s| (s.size, clock.bytes_per_s(m, s) / 1e6))
                    .collect()
            })
            .collect()
    };
    let labels: Vec<String> = ms
        .iter()
        .map(|m| format!("{} ({})", m.job.label(), m.board.name))
        .collect();
    let host = format!(
        "host real time (through the PDs, {})",
        super::report::slices_said(ms)
    );
    let panels = [
        (
            "modelled board time (ledger x cost table)",
            panel(Clock::Modelled),
        ),
        (host.as_str(), panel(Clock::Host)),
    ];
    plot(path, "throughput against request size", &panels, &labels)
}

/// Draws `panels` side by side (each a caption and one line per label, in `labels`'
/// order) with one legend below them all, into the SVG file `path`; the title says the
/// machine and the build.
pub fn plot(
    path: &Path,
    title: &str,
    panels: &[(&str, Vec<Points>)],
    labels: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    // One legend row per series below the charts, never over a line.
    let legend_h = 24 * labels.len() as u32 + 16;
    // Wide enough for the title line even with one chart.
    let width = (700 * panels.len() as u32).max(1100);
    let root = SVGBackend::new(path, (width, 600 + legend_h)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "{title}: {}",
        bench_stats::context()
            .split(", each figure")
            .next()
            .unwrap_or_default()
    );
    let root = root.titled(&title, ("sans-serif", 18))?;
    let (charts, legend) = root.split_vertically(560);
    let areas = charts.split_evenly((1, panels.len().max(1)));
    for (area, (caption, series)) in areas.iter().zip(panels) {
        // x is log2 of the size, so ticks fall on powers of two (16 B ..).
        let points: Vec<Vec<(f64, f64)>> = series
            .iter()
            .map(|pts| pts.iter().map(|&(n, y)| ((n as f64).log2(), y)).collect())
            .collect();
        let all = points.iter().flatten();
        let (mut xmin, mut xmax, mut ymin, mut ymax) = (f64::MAX, 0f64, f64::MAX, 0f64);
        for &(x, y) in all {
            xmin = xmin.min(x);
            xmax = xmax.max(x);
            ymin = ymin.min(y);
            ymax = ymax.max(y);
        }
        if xmax == 0.0 {
            continue;
        }
        let mut chart = ChartBuilder::on(area)
            .caption(*caption, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(xmin - 0.5..xmax + 0.5, (ymin * 0.5..ymax * 2.0).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("request size")
            .y_desc("throughput (MB/s)")
            .x_labels(16)
            .x_label_formatter(&|x| {
                // Label whole powers of two only.
                if (x - x.round()).abs() < 1e-6 {
                    bytes_label(x.round().exp2())
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| format!("{y:.3}"))
            .draw()?;
        for (i, pts) in points.into_iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            chart.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))?;
            // Four marker shapes, so series differ beyond colour.
            let (fill, line) = (colour.filled(), colour.stroke_width(2));
            match i % 4 {
                0 => {
                    chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, fill)))?;
                }
                1 => {
                    chart.draw_series(pts.iter().map(|p| TriangleMarker::new(*p, 5, fill)))?;
                }
                2 => {
                    chart.draw_series(pts.iter().map(|p| Cross::new(*p, 4, line)))?;
                }
                _ => {
                    chart.draw_series(pts.iter().map(|p| {
                        EmptyElement::at(*p) + Rectangle::new([(-3, -3), (3, 3)], fill)
                    }))?;
                }
            }
        }
    }
    for (i, label) in labels.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let y = 8 + 24 * i as i32;
        legend.draw(&PathElement::new(
            vec![(40, y + 8), (80, y + 8)],
            colour.stroke_width(2),
        ))?;
        let (at, fill, line) = ((60, y + 8), colour.filled(), colour.stroke_width(2));
        match i % 4 {
            0 => legend.draw(&Circle::new(at, 4, fill))?,
            1 => legend.draw(&TriangleMarker::new(at, 5, fill))?,
            2 => legend.draw(&Cross::new(at, 4, line))?,
            _ => legend.draw(&Rectangle::new([(57, y + 5), (63, y + 11)], fill))?,
        }
        legend.draw(&Text::new(label.clone(), (92, y), ("sans-serif", 15)))?;
    }
    root.present()?;
    Ok(())
}

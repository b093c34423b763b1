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

fn draw(ms: &[Measured], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1400, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(700);
    for (area, clock) in [(left, Clock::Modelled), (right, Clock::Host)] {
        let points: Vec<Vec<(f64, f64)>> = ms
            .iter()
            .map(|m| {
                m.samples
                    .iter()
                    .filter(|s| s.measured())
                    .map(|s| (s.size as f64, clock.bytes_per_s(m, s) / 1e6))
                    .collect()
            })
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
        let title = match clock {
            Clock::Modelled => "modelled board time (ledger x cost table)",
            Clock::Host => "host real time (through the PDs)",
        };
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (xmin * 0.8..xmax * 1.25).log_scale(),
                (ymin * 0.5..ymax * 2.0).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("request size (bytes)")
            .y_desc("MB/s")
            .draw()?;
        for (i, (m, pts)) in ms.iter().zip(points).enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                .label(format!("{} ({})", m.job.label(), m.board.name))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

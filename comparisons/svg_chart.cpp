// See svg_chart.hpp.
#include "comparisons/svg_chart.hpp"

#include "comparisons/results_view.hpp"  // format

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>

namespace reducelab::report::svg {

namespace {

using detail::format;

constexpr double width = 1000, height = 540;
constexpr double margin_left = 84, margin_right = 330, margin_top = 64, margin_bottom = 64;
constexpr double plot_left = margin_left, plot_right = width - margin_right;
constexpr double plot_top = margin_top, plot_bottom = height - margin_bottom;
constexpr double legend_left = plot_right + 24, legend_sample = 30, legend_row_max = 17;
constexpr double legend_char_width = 6.9;  // average at 12 px; longer labels are squeezed to fit
constexpr double legend_text_gap = 6, legend_right_pad = 6;
constexpr double body_font = 12;  // legend_char_width below is measured at this size
constexpr double title_y = 26, subtitle_y = 46, title_font = 16;
constexpr double x_tick_label_gap = 15, x_axis_title_from_bottom = 16, y_axis_title_x = 22;
constexpr double superscript_rise = 6, superscript_font = 9, y_tick_label_gap = 3, text_baseline_shift = 4;
constexpr double tolerance = 1e-9;  // loop bounds over floating-point tick positions
constexpr double tick_length = 5, marker_radius = 3;
constexpr int max_x_ticks = 12, max_log_y_ticks = 9, target_linear_y_ticks = 6;
constexpr double headroom = 1.05;  // above the highest point or the peak line
constexpr const char* font = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\"";
constexpr const char* reference_colour = "#555555";
constexpr const char* reference_dash = "6 4";
constexpr double reference_stroke = 1.5;

std::string escape(const std::string& text) {
  std::string s;
  for (char c : text) {
    switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      default: s += c;
    }
  }
  return s;
}

std::string num(double v) { return format("%.1f", v); }

double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  return (f < 1.5 ? 1.0 : f < 3.0 ? 2.0 : f < 7.0 ? 5.0 : 10.0) * magnitude;
}

std::string speedup_tick_label(int k) {
  if (k >= 0) return format("%.0f×", std::ldexp(1.0, k));
  if (k >= -3) return format("%g×", std::ldexp(1.0, k));
  return format("1/%.0f×", std::ldexp(1.0, -k));
}

}  // namespace

std::string render(const chart& ch) {
  // x range: whole powers of two around the data
  double x_min = INFINITY, x_max = -INFINITY, y_min = INFINITY, y_max = -INFINITY;
  for (const auto& l : ch.lines)
    for (const auto& [x, y] : l.points) {
      x_min = std::min(x_min, x);
      x_max = std::max(x_max, x);
      y_min = std::min(y_min, y);
      y_max = std::max(y_max, y);
    }
  if (ch.reference_y) {
    y_min = std::min(y_min, *ch.reference_y);
    y_max = std::max(y_max, *ch.reference_y);
  }
  if (!std::isfinite(x_min) || !std::isfinite(y_min)) {  // nothing to draw: an empty frame, not NaN coordinates
    x_min = 0;
    x_max = 1;
    y_min = y_max = 1;
  }
  double x_lo = std::floor(x_min), x_hi = std::ceil(x_max);
  if (x_hi <= x_lo) {
    x_lo -= 1;
    x_hi += 1;
  }
  double y_lo = 0, y_hi = 1, y_step = 1;
  if (ch.log2_y) {
    y_lo = std::min(0.0, std::floor(std::log2(y_min)));
    y_hi = std::max(0.0, std::ceil(std::log2(y_max)));
    if (y_hi <= y_lo) y_hi = y_lo + 1;
    y_step = std::ceil((y_hi - y_lo) / max_log_y_ticks);
  } else {
    y_step = nice_step(std::max(y_max * headroom, tolerance) / target_linear_y_ticks);
    y_hi = std::ceil(y_max * headroom / y_step) * y_step;
  }
  auto px = [&](double x) { return plot_left + (x - x_lo) / (x_hi - x_lo) * (plot_right - plot_left); };
  auto py = [&](double y) {
    const double v = ch.log2_y ? std::log2(y) : y;
    return plot_bottom - (v - y_lo) / (y_hi - y_lo) * (plot_bottom - plot_top);
  };

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\" " << font << " font-size=\"" << num(body_font) << "\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << num(plot_left) << "\" y=\"" << num(title_y) << "\" font-size=\"" << num(title_font)
    << "\" font-weight=\"bold\">" << escape(ch.title)
    << "</text>\n";
  if (!ch.subtitle.empty())
    s << "<text x=\"" << num(plot_left) << "\" y=\"" << num(subtitle_y) << "\" fill=\"#555\">" << escape(ch.subtitle)
      << "</text>\n";

  // grid and y ticks
  s << "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  std::vector<std::pair<double, std::string>> y_ticks;
  if (ch.log2_y) {
    for (double k = y_lo; k <= y_hi + tolerance; k += y_step)
      y_ticks.emplace_back(std::ldexp(1.0, static_cast<int>(k)), speedup_tick_label(static_cast<int>(k)));
  } else {
    for (double v = 0; v <= y_hi + y_step * tolerance; v += y_step) y_ticks.emplace_back(v, format("%g", v));
  }
  for (const auto& [v, label] : y_ticks)
    if (!ch.log2_y || v > 0)
      s << "<line x1=\"" << num(plot_left) << "\" y1=\"" << num(py(v)) << "\" x2=\"" << num(plot_right)
        << "\" y2=\"" << num(py(v)) << "\"/>\n";
  const double x_stride = std::ceil((x_hi - x_lo) / max_x_ticks);
  for (double k = x_lo; k <= x_hi + tolerance; k += x_stride)
    s << "<line x1=\"" << num(px(k)) << "\" y1=\"" << num(plot_top) << "\" x2=\"" << num(px(k)) << "\" y2=\""
      << num(plot_bottom) << "\"/>\n";
  s << "</g>\n";

  // axes, tick labels, axis titles
  s << "<g stroke=\"#333\" stroke-width=\"1.2\">\n"
    << "<line x1=\"" << num(plot_left) << "\" y1=\"" << num(plot_bottom) << "\" x2=\"" << num(plot_right)
    << "\" y2=\"" << num(plot_bottom) << "\"/>\n"
    << "<line x1=\"" << num(plot_left) << "\" y1=\"" << num(plot_top) << "\" x2=\"" << num(plot_left) << "\" y2=\""
    << num(plot_bottom) << "\"/>\n";
  for (const auto& [v, label] : y_ticks)
    s << "<line x1=\"" << num(plot_left - tick_length) << "\" y1=\"" << num(py(v)) << "\" x2=\"" << num(plot_left)
      << "\" y2=\"" << num(py(v)) << "\"/>\n";
  for (double k = x_lo; k <= x_hi + tolerance; k += x_stride)
    s << "<line x1=\"" << num(px(k)) << "\" y1=\"" << num(plot_bottom) << "\" x2=\"" << num(px(k)) << "\" y2=\""
      << num(plot_bottom + tick_length) << "\"/>\n";
  s << "</g>\n<g fill=\"#333\">\n";
  for (const auto& [v, label] : y_ticks)
    s << "<text x=\"" << num(plot_left - tick_length - y_tick_label_gap) << "\" y=\"" << num(py(v) + text_baseline_shift)
      << "\" text-anchor=\"end\">" << escape(label) << "</text>\n";
  for (double k = x_lo; k <= x_hi + tolerance; k += x_stride)
    s << "<text x=\"" << num(px(k)) << "\" y=\"" << num(plot_bottom + tick_length + x_tick_label_gap)
      << "\" text-anchor=\"middle\">2<tspan dy=\"" << num(-superscript_rise) << "\" font-size=\""
      << num(superscript_font) << "\">" << static_cast<int>(k)
      << "</tspan></text>\n";
  s << "<text x=\"" << num((plot_left + plot_right) / 2) << "\" y=\"" << num(height - x_axis_title_from_bottom)
    << "\" text-anchor=\"middle\">" << escape(ch.x_label) << "</text>\n"
    << "<text transform=\"translate(" << num(y_axis_title_x) << "," << num((plot_top + plot_bottom) / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">" << escape(ch.y_label) << "</text>\n</g>\n";

  auto stroke_attributes = [](const line_style& st) {
    return "fill=\"none\" stroke=\"" + st.colour + "\" stroke-width=\"" + num(st.stroke) + "\"" +
           (st.dash.empty() ? "" : " stroke-dasharray=\"" + st.dash + "\"") + " stroke-linejoin=\"round\"";
  };
  const line_style reference_style{reference_colour, reference_dash, reference_stroke, false};
  const std::size_t legend_entries = ch.lines.size() + (ch.reference_y ? 1 : 0);
  const double row_height =
      std::min(legend_row_max, (plot_bottom - plot_top) / std::max<double>(1.0, static_cast<double>(legend_entries)));
  auto legend_entry = [&](std::size_t i, const line_style& st, const std::string& label) {
    const double ly = plot_top + row_height * (static_cast<double>(i) + 0.5);
    const double text_x = legend_left + legend_sample + legend_text_gap;
    const double room = width - legend_right_pad - text_x;
    const bool squeeze = static_cast<double>(label.size()) * legend_char_width > room;
    s << "<line x1=\"" << num(legend_left) << "\" y1=\"" << num(ly) << "\" x2=\"" << num(legend_left + legend_sample)
      << "\" y2=\"" << num(ly) << "\" " << stroke_attributes(st) << "/>\n"
      << "<text x=\"" << num(text_x) << "\" y=\"" << num(ly + text_baseline_shift) << "\""
      << (squeeze ? " textLength=\"" + num(room) + "\" lengthAdjust=\"spacingAndGlyphs\"" : "")
      << (st.bold_label ? " font-weight=\"bold\"" : "") << ">" << escape(label) << "</text>\n";
  };

  if (ch.reference_y) {
    const double y = py(*ch.reference_y);
    s << "<g>\n<line x1=\"" << num(plot_left) << "\" y1=\"" << num(y) << "\" x2=\"" << num(plot_right) << "\" y2=\""
      << num(y) << "\" " << stroke_attributes(reference_style) << "/>\n";
    legend_entry(ch.lines.size(), reference_style, ch.reference_label);
    s << "</g>\n";
  }

  // series, each with its legend entry
  for (std::size_t i = 0; i < ch.lines.size(); ++i) {
    const series& l = ch.lines[i];
    const std::string style = stroke_attributes(l.style);
    const std::string& colour = l.style.colour;
    s << "<g>\n<title>" << escape(l.label) << "</title>\n<polyline " << style << " points=\"";
    for (std::size_t j = 0; j < l.points.size(); ++j)
      s << (j ? " " : "") << num(px(l.points[j].first)) << "," << num(py(l.points[j].second));
    s << "\"/>\n";
    for (const auto& [x, y] : l.points)
      s << "<circle cx=\"" << num(px(x)) << "\" cy=\"" << num(py(y)) << "\" r=\"" << num(marker_radius)
        << "\" fill=\"" << colour << "\"/>\n";
    legend_entry(i, l.style, l.label);
    s << "</g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace reducelab::report::svg

// The one SVG chart both reports draw (report.md's charts over n, segmented.md's over segment length): a log2 x
// axis, one polyline per backend with markers and a legend entry, an optional dashed reference line (the device's
// peak, or 1× CUB), a linear or log2 y axis. The styles below are the reports' shared conventions, so a backend
// looks the same in every chart: libraries thick and dashed, reducelab's entry points thick and solid in a colour
// of their own, custom variants thin from a palette.
#pragma once

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reducelab::report::svg {

inline constexpr double custom_stroke = 1.8, library_stroke = 3.2;
inline constexpr const char* library_dash = "8 4";
inline constexpr const char* second_cycle_dash = "5 2 1.5 2";  // custom variants beyond the palette
// d3's category10: distinct on white and for most colour-blind readers when paired with the dash patterns.
inline constexpr const char* custom_palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
// Libraries keep one colour in every chart: CUB's reference black, CUB's own operators blue, Thrust red.
inline constexpr const char* cub_reference_colour = "#000000";
inline constexpr const char* cub_own_op_colour = "#2166ac";
inline constexpr const char* thrust_colour = "#b2182b";
// reducelab's entry points: a dark teal no custom variant uses; the host-returning call dotted in the same colour.
inline constexpr const char* reducelab_colour = "#00756f";
inline constexpr const char* reducelab_host_dash = "2 3";

struct line_style {
  std::string colour;
  std::string dash;  // empty: solid
  double stroke = custom_stroke;
  bool bold_label = false;
};

/// A library baseline (CUB, Thrust): thick and dashed, its label bold.
inline line_style baseline_style(const char* colour) { return {colour, library_dash, library_stroke, true}; }

/// One of reducelab's own entry points: thick, in its teal, solid unless `dash` (the host-returning call's).
inline line_style reducelab_style(const char* dash = "") { return {reducelab_colour, dash, library_stroke, true}; }

/// The k-th (from 0) custom variant of a run: thin, from the palette; past it, the palette again dash-dotted. The
/// caller numbers variants over the whole run, so a variant keeps its colour in every chart.
inline line_style custom_style(std::size_t k) {
  constexpr std::size_t palette = std::size(custom_palette);
  return {custom_palette[k % palette], k >= palette ? second_cycle_dash : "", custom_stroke, false};
}

struct series {
  std::string label;
  line_style style;
  std::vector<std::pair<double, double>> points;  // (log2 x, y)
};

struct chart {
  std::string title;
  std::string subtitle;  // empty: none
  std::string x_label = "elements n (log scale)";
  std::string y_label;
  bool log2_y = false;
  std::optional<double> reference_y;  // a dashed horizontal line, named last in the legend
  std::string reference_label;
  std::vector<series> lines;
};

/// The chart as a standalone SVG document. Points with NaN or infinite coordinates are the caller's to leave out;
/// a chart with no points draws an empty frame.
std::string render(const chart& ch);

}  // namespace reducelab::report::svg

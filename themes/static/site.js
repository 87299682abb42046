// evalbook: draws interactive charts when ECharts is present (the static
// SVG stays otherwise), switches the theme and sorts tables. No network.
(function () {
  "use strict";
  var root = document.documentElement;
  function dark() {
    var t = root.dataset.theme;
    if (t) return t === "dark";
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  }
  // One ECharts instance per chart element, made the first time the
  // element is visible and kept: a redraw resizes it, a theme change
  // re-themes it. Disposing an instance whose first paint is still running
  // (ECharts paints a large chart over several frames) makes the next frame
  // throw "Cannot read properties of null (reading 'layerStack')", so an
  // instance is disposed only when its element has left the document (or,
  // with an ECharts that cannot re-theme, on a theme change).
  var charts = [];
  function reducedMotion() {
    return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }
  // Marks keep 3:1 contrast with the page: a series colour too close to
  // the background is moved away from it in lightness, hue kept (dark mode
  // draws light marks where the light theme draws dark ones). Colour
  // scales (visualMap) are left as they are.
  function rgb(hex) {
    var m = /^#([0-9a-f]{6})$/i.exec(hex);
    if (!m) return null;
    var n = parseInt(m[1], 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }
  function luminance(c) {
    var l = c.map(function (v) { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  }
  function contrast(a, b) {
    var x = luminance(a), y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }
  function toHex(c) { return "#" + c.map(function (v) { return ("0" + Math.round(v).toString(16)).slice(-2); }).join(""); }
  function legible(hex, bg) {
    var c = rgb(hex);
    if (!c || contrast(c, bg) >= 3) return hex;
    // past 3:1 with a margin, so that rounding to whole RGB values cannot
    // bring it back under
    var lighten = luminance(bg) < 0.5;
    for (var t = 0.05; t <= 1.0001; t += 0.05) {
      var target = lighten ? 255 : 0;
      var d = c.map(function (v) { return v + (target - v) * t; });
      if (contrast(d.map(Math.round), bg) >= 3.1) return toHex(d);
    }
    return hex;
  }
  function background() {
    var m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(getComputedStyle(document.body).backgroundColor);
    return m ? [+m[1], +m[2], +m[3]] : [255, 255, 255];
  }
  // A heatmap's cell labels are set against their cells, black or
  // white by the cell's colour, never against the page: they are left
  // as they are (lightened on a dark page, black turned grey on blue).
  // An opaque region (evalbookRegion: the contour funnel's p-value
  // regions) keeps its colours: they are what it means.
  function adapt(v, bg, key) {
    if (Array.isArray(v)) return v.map(function (e) { return adapt(e, bg, key); });
    if (v && typeof v === "object" && v.evalbookRegion) return v;
    if (v && typeof v === "object") {
      var cells = v.type === "heatmap";
      for (var k in v) {
        if (k === "visualMap" || cells && (k === "data" || k === "label")) continue;
        v[k] = adapt(v[k], bg, k);
      }
      return v;
    }
    if (typeof v === "string" && (key === "color" || key === "borderColor")) return legible(v, bg);
    return v;
  }
  // A translucent mark shows its colour mixed with the page (unless the
  // option says otherwise, ECharts draws a scatter's symbols 80% opaque,
  // a lines series at 50%, a parallel series at 45%): its opacity
  // is raised, its colour kept, until what the reader sees has 3:1
  // contrast with the page. A line drawn at opacity 0 (the edge of a
  // shaded band) stays undrawn.
  function opaqueEnough(option, bg) {
    var palette = option.color || [];
    (option.series || []).forEach(function (s, i) {
      [["itemStyle", s.type === "scatter" ? 0.8 : 1], ["lineStyle", s.type === "lines" ? 0.5 : s.type === "parallel" ? 0.45 : 1]].forEach(function (styled) {
        var key = styled[0], style = s[key] || {};
        var opacity = typeof style.opacity === "number" ? style.opacity : styled[1], o = opacity;
        if (!(o > 0 && o < 1)) return;
        var c = rgb(style.color || (s.itemStyle || {}).color || palette[i % palette.length] || "");
        if (!c) return;
        var seen = function () { return c.map(function (v, k) { return Math.round(v * o + bg[k] * (1 - o)); }); };
        while (o < 1 && contrast(seen(), bg) < 3.1) o = Math.min(1, o + 0.05);
        if (o !== opacity) { style.opacity = o; s[key] = style; }
      });
    });
    return option;
  }
  // A value axis leaves out a tick label that would run over the one
  // before it (a phone's narrow plot of -0.009 … -0.003); a category
  // axis keeps every name.
  function hideOverlappingTicks(option) {
    ["xAxis", "yAxis"].forEach(function (k) {
      (Array.isArray(option[k]) ? option[k] : option[k] ? [option[k]] : []).forEach(function (a) {
        if (a.type === "category") return;
        a.axisLabel = a.axisLabel || {};
        if (a.axisLabel.hideOverlap === undefined) a.axisLabel.hideOverlap = true;
      });
    });
    return option;
  }
  function chartOption(text, isDark) {
    // an inline option is JSON text; a loaded one an object, copied so
    // that a redraw starts from the original colours
    var option = typeof text === "string" ? JSON.parse(text) : JSON.parse(JSON.stringify(text));
    if (isDark) option.backgroundColor = "transparent";
    if (reducedMotion()) option.animation = false;
    var bg = background();
    return hideOverlappingTicks(opaqueEnough(adapt(option, bg, ""), bg));
  }
  // A legend in rows under the plot (the site writer counted them for a
  // desktop column, evalbookRows): counted again at the chart's width,
  // the plot's bottom margin and the chart's height follow.
  var measure = document.createElement("canvas").getContext("2d");
  function layoutLegend(option, el) {
    var l = option.legend;
    if (!l || Array.isArray(l) || !l.evalbookRows) return;
    var width = el.clientWidth - 10, rows = 1, x = 0, seen = {};
    measure.font = "12px sans-serif";
    (option.series || []).forEach(function (s) {
      if (!s.name || seen[s.name]) return;
      seen[s.name] = true;
      var w = measure.measureText(s.name).width + 25 + 5 + 10;
      if (x + w > width && x > 0) { rows++; x = 0; }
      x += w;
    });
    var extra = 24 * (rows - l.evalbookRows);
    if (!el.dataset.h0) el.dataset.h0 = String(el.clientHeight);
    el.style.height = Math.max(+el.dataset.h0 + extra, 200) + "px";
    option.grid = option.grid || {};
    if (Array.isArray(option.grid)) {
      if (!option.evalbookStacked) option.grid.forEach(function (g) { g.bottom = 40 + 24 * rows; });
    } else {
      option.grid.bottom = 40 + 24 * rows;
    }
  }
  // widestCell is the width of a heatmap's widest cell text at size px:
  // its label's own text (the cluster leaderboard's "3.43 (0.1160)") or
  // its value.
  function widestCell(s, size) {
    measure.font = size + "px sans-serif";
    var widest = 0;
    (s.data || []).forEach(function (d) {
      var v = Array.isArray(d) ? d[2] : d && d.value ? d.value[2] : null;
      var text = d && d.label && typeof d.label.formatter === "string" ? d.label.formatter : v === null || v === undefined ? "" : String(v);
      widest = Math.max(widest, measure.measureText(text).width);
    });
    return widest;
  }
  // A heatmap's cell numbers are shown where the widest fits its cell,
  // at their size or smaller down to 9 px (on a phone, thirteen columns
  // are 20 px each); otherwise they are left out rather than run over
  // each other, and stay in the tooltip and in the table beside the
  // figure. Called again after a resize, without the option: the chart
  // remembers each heatmap's written label size.
  function fitCellLabels(chart, option) {
    if (option) {
      chart.evalbookCells = [];
      (option.series || []).forEach(function (s, i) {
        if (s.type === "heatmap" && s.label && s.label.show) chart.evalbookCells.push({ i: i, size: s.label.fontSize || 12 });
      });
    }
    if (!chart.evalbookCells || !chart.evalbookCells.length) return;
    var series = chart.getOption().series, patch = series.map(function () { return {}; }), change = false;
    chart.evalbookCells.forEach(function (c) {
      var s = series[c.i], a = chart.convertToPixel({ seriesIndex: c.i }, [0, 0]), b = chart.convertToPixel({ seriesIndex: c.i }, [1, 0]);
      if (!s || !a || !b) return;
      var widest = widestCell(s, c.size);
      var room = Math.abs(b[0] - a[0]) - 4, size = Math.min(c.size, Math.floor(c.size * room / Math.max(widest, 1)));
      var label = size >= 9 ? { show: true, fontSize: size } : { show: false, fontSize: c.size };
      var now = s.label || {};
      if (label.show !== !!now.show || label.fontSize !== now.fontSize) { patch[c.i] = { label: label }; change = true; }
    });
    if (change) chart.setOption({ series: patch });
  }
  // widestText is the width of the widest of an axis's names at size px
  // (a name may be an object with a value).
  function widestText(names, size) {
    measure.font = (size || 12) + "px sans-serif";
    var widest = 0;
    (names || []).forEach(function (c) { widest = Math.max(widest, measure.measureText(String(c && c.value !== undefined ? c.value : c)).width); });
    return widest;
  }
  // A category axis's names are written at 45° (the option says so for
  // names of more than four letters) only where they would not fit
  // level under their categories at the chart's width: four strategies
  // on a desktop column stand level, thirteen methods on a phone slant.
  function unrotateFitting(option, el) {
    var xs = Array.isArray(option.xAxis) ? option.xAxis : option.xAxis ? [option.xAxis] : [];
    var ys = Array.isArray(option.yAxis) ? option.yAxis : option.yAxis ? [option.yAxis] : [];
    var grids = Array.isArray(option.grid) ? option.grid : [option.grid || {}];
    xs.forEach(function (a, i) {
      if (a.type !== "category" || !a.axisLabel || a.axisLabel.rotate !== 45 || !(a.data || []).length) return;
      var gi = a.gridIndex || 0, g = grids[gi] || {}, width = el.clientWidth;
      var side = function (v, d) { return typeof v === "number" ? v : typeof v === "string" && /%$/.test(v) ? width * parseFloat(v) / 100 : d; };
      var plot = typeof g.width === "string" && /%$/.test(g.width) ? width * parseFloat(g.width) / 100 : width - side(g.left, 0.1 * width) - side(g.right, 0.1 * width);
      if (g.containLabel) { // the y axis's names take their room from the plot
        var y = ys.filter(function (b) { return (b.gridIndex || 0) === gi; })[0] || {};
        plot -= y.type === "category" ? widestText(y.data, (y.axisLabel || {}).fontSize) + 8 : 40;
      }
      if (widestText(a.data, a.axisLabel.fontSize) + 12 <= plot / a.data.length) {
        delete a.axisLabel.rotate;
        a.nameGap = 30;
      }
    });
  }
  // A heatmap keeps columns as wide as its widest cell number (at least
  // 34 px, room for its 45° column names too): on a phone, where thirteen
  // columns would be 10 px each, the chart is wider than the screen and
  // its figure scrolls sideways, with the cue above it (markScrolls).
  function heatmapWidth(option, el) {
    var heat = (option.series || []).filter(function (s) { return s.type === "heatmap"; });
    var xs = Array.isArray(option.xAxis) ? option.xAxis : [option.xAxis || {}];
    var ys = Array.isArray(option.yAxis) ? option.yAxis : [option.yAxis || {}];
    var cols = (xs[0].data || []).length;
    if (!heat.length || cols < 2 || xs.length > 1) { el.style.minWidth = ""; return; }
    var label = widestText(ys[0].data, 12), cell = 26;
    heat.forEach(function (s) {
      if (s.label && s.label.show) cell = Math.max(cell, widestCell(s, s.label.fontSize || 12));
    });
    var grid = Array.isArray(option.grid) ? option.grid[0] : option.grid || {};
    var need = Math.ceil((+grid.left || 0) + (+grid.right || 0) + label + 8 + (cell + 8) * cols);
    var room = el.parentElement ? el.parentElement.clientWidth : el.clientWidth;
    el.style.minWidth = need > room ? need + "px" : "";
  }
  // A figure of several panels side by side (one grid each) is stacked,
  // one panel under another, where the chart is narrower than a phone in
  // landscape: each panel keeps the width of the screen.
  var panelHeight = 280;
  function stackPanels(option, el) {
    var grids = option.grid;
    if (!Array.isArray(grids) || el.clientWidth >= 600) return;
    var n = grids.length, legend = option.legend ? 70 : 20;
    el.dataset.h0 = String(n * panelHeight + legend);
    el.style.height = el.dataset.h0 + "px";
    grids.forEach(function (g, i) {
      delete g.width;
      g.left = 44; g.right = 24; g.top = i * panelHeight + 44; g.height = panelHeight - 104;
      delete g.bottom;
    });
    var titles = Array.isArray(option.title) ? option.title : option.title ? [option.title] : [];
    titles.forEach(function (t, i) { t.top = i * panelHeight + 10; t.left = "center"; delete t.textAlign; });
    option.evalbookStacked = true;
  }
  // A figure wider than its column (a static figure kept at a legible
  // size on a phone) scrolls sideways, and says so above it; so does a
  // table wider than its column (a summary of 17 columns on a laptop,
  // whose last columns were cut at the edge with nothing to say so),
  // under its caption (site.css), so the cue is read with its table.
  function markScrolls() {
    document.querySelectorAll("figure.figure, .table-scroll").forEach(function (f) {
      var wide = f.scrollWidth > f.clientWidth + 1;
      f.classList.toggle("scrolls", wide);
      var table = f.tagName !== "FIGURE", at = table ? f.querySelector(":scope > table > caption") : f;
      if (wide && at && !at.querySelector(".scroll-cue")) {
        var cue = document.createElement(table ? "span" : "p");
        cue.className = "scroll-cue";
        cue.textContent = "\u21c6 Wider than the screen: scroll sideways to see all of it";
        if (table) at.appendChild(cue); else at.insertBefore(cue, at.firstChild);
      }
    });
  }
  window.addEventListener("load", markScrolls);
  // a table shown from its collapsed form is measured when opened
  document.querySelectorAll("details.more-table").forEach(function (d) { d.addEventListener("toggle", markScrolls); });
  document.querySelectorAll("figure.figure img.static").forEach(function (img) { img.addEventListener("load", markScrolls); });
  // draw draws every visible chart not yet drawn and brings the others up
  // to date; hidden ones (other pages of a single-file site, opt-in
  // charts) are drawn when shown. Calling it twice is harmless. Charts are
  // drawn one per task, in page order, so the page paints and answers
  // between them (a page of six large charts is not blocked by all six);
  // a newer call takes over from an older one's queue.
  var generation = 0;
  var loading = {};
  window.EVALBOOK_CHARTS = window.EVALBOOK_CHARTS || {};
  function optionText(el) {
    var inline = el.getAttribute("data-option");
    if (inline !== null) return inline;
    return window.EVALBOOK_CHARTS[el.getAttribute("data-chart-id")] || null;
  }
  // A large chart's option is a script of its own (data/charts/*.js),
  // loaded when the chart is first drawn.
  function load(el) {
    var src = el.getAttribute("data-option-src");
    if (!src || loading[src]) return;
    loading[src] = true;
    var s = document.createElement("script");
    s.src = src;
    s.onload = draw;
    document.body.appendChild(s);
  }
  // drawOne draws el's chart; update redraws it from its option (the
  // Explore page's, new for each view) in the instance it has.
  function drawOne(el, update) {
    var ec = window.echarts;
    var isDark = !!dark();
    var text = optionText(el);
    if (text === null) { load(el); return; }
    var chart = ec.getInstanceByDom(el);
    var entry = null;
    for (var j = 0; j < charts.length; j++) if (charts[j].el === el) entry = charts[j];
    if (chart && entry && entry.dark === isDark && !update) {
      chart.resize(); // its page may have been hidden while the window changed size
      fitCellLabels(chart);
      return;
    }
    if (chart && typeof chart.setTheme !== "function") {
      chart.dispose(); // an ECharts older than 6: re-theming is a new instance
      chart = null;
    }
    var option = chartOption(text, isDark);
    if (update) option.animation = false; // a view replaces the last at once
    stackPanels(option, el);
    heatmapWidth(option, el);
    unrotateFitting(option, el);
    layoutLegend(option, el);
    if (chart) {
      if (!entry || entry.dark !== isDark) chart.setTheme(isDark ? "dark" : {});
      // a resize draws the last option again: only when the size changed
      if (el.clientWidth !== chart.getWidth() || el.clientHeight !== chart.getHeight()) chart.resize();
    } else {
      chart = ec.init(el, isDark ? "dark" : null, { renderer: "canvas" });
    }
    chart.setOption(option, true);
    fitCellLabels(chart, option);
    if (entry) {
      entry.chart = chart;
      entry.dark = isDark;
      entry.room = roomOf(el);
    } else {
      charts.push({ el: el, chart: chart, dark: isDark, room: roomOf(el) });
    }
  }
  // roomOf is the width a chart is laid out for: its figure's (the chart
  // itself may be made wider than it, a heatmap's minimum width).
  function roomOf(el) { return el.parentElement ? el.parentElement.clientWidth : el.clientWidth; }
  function draw() {
    if (!window.echarts) return;
    var gen = ++generation;
    charts = charts.filter(function (c) {
      if (c.chart.isDisposed()) return false;
      if (document.contains(c.el)) return true;
      c.chart.dispose();
      return false;
    });
    var queue = Array.prototype.filter.call(document.querySelectorAll(".echart[data-option], .echart[data-option-src]"),
      function (el) { return el.offsetParent !== null; });
    if (queue.length) root.classList.add("charts-on");
    var run = function () {
      if (gen !== generation) return;
      var el = queue.shift();
      if (el && el.offsetParent !== null) drawOne(el);
      if (queue.length) setTimeout(run, 0);
      else {
        markScrolls();
        if (window.performance && performance.mark) performance.mark("evalbook-charts-drawn"); // make bench-pages reads it
      }
    };
    run();
  }
  // Figures whose static SVG shows more (the forest plot's columns) show
  // it first; the button swaps in the interactive chart and back.
  document.querySelectorAll("button.show-chart").forEach(function (button) {
    button.addEventListener("click", function () {
      var chart = document.getElementById(button.getAttribute("aria-controls"));
      var img = button.parentElement.querySelector("img.static");
      var on = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", on ? "true" : "false");
      chart.hidden = !on;
      if (img) img.hidden = on;
      draw();
    });
  });
  // A resize redraws each chart at once at its new size; once the window
  // has settled, a chart whose room changed is laid out again for it as
  // a load at that width lays it out: level or slanted category names,
  // panels side by side or stacked, the legend's place, a heatmap's width.
  var settle = null;
  window.addEventListener("resize", function () {
    charts.forEach(function (c) { if (c.el.offsetParent !== null) { c.chart.resize(); fitCellLabels(c.chart); } });
    markScrolls();
    clearTimeout(settle);
    settle = setTimeout(function () {
      charts.forEach(function (c) { if (c.el.offsetParent !== null && c.room !== roomOf(c.el)) drawOne(c.el, true); });
      markScrolls();
    }, 150);
  });
  var toggle = document.getElementById("theme-toggle");
  function pressed() { if (toggle) toggle.setAttribute("aria-pressed", dark() ? "true" : "false"); }
  pressed();
  if (toggle) toggle.addEventListener("click", function () {
    root.dataset.theme = dark() ? "light" : "dark";
    try { localStorage.setItem("evalbook-theme", root.dataset.theme); } catch (e) {}
    pressed();
    draw();
  });
  // Phone: the contents are behind a menu button.
  var menu = document.getElementById("menu-toggle"), side = document.getElementById("side-nav");
  if (menu && side) menu.addEventListener("click", function () {
    var open = menu.getAttribute("aria-expanded") !== "true";
    menu.setAttribute("aria-expanded", open ? "true" : "false");
    side.classList.toggle("open", open);
  });
  // Sortable tables: each header is a button (reachable by Tab, pressed
  // with Enter or Space); aria-sort says the order of every column.
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) button.appendChild(th.firstChild);
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var xv = x.getAttribute("data-v"), yv = y.getAttribute("data-v");
          // data-v is the number the cell shows (a rank column sorts by
          // its ranks); a cell without a value goes last either way.
          var c, xn = xv === null || xv === "", yn = yv === null || yv === "";
          if (x.classList.contains("num") || y.classList.contains("num")) {
            if (xn || yn) return xn === yn ? 0 : (xn ? 1 : -1);
            c = parseFloat(xv) - parseFloat(yv);
          } else c = x.textContent.localeCompare(y.textContent);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  // Math: TeX rendered as MathML by KaTeX (no fonts needed); without
  // KaTeX the TeX source stays readable.
  if (window.katex) {
    document.querySelectorAll(".math[data-tex]").forEach(function (el) {
      try {
        window.katex.render(el.getAttribute("data-tex"), el, { output: "mathml", displayMode: el.classList.contains("display"), throwOnError: false });
      } catch (e) { /* leave the source */ }
    });
  }
  // Search: an index in assets/search.js, matched in the browser, so it
  // works from file:// with no server.
  var input = document.getElementById("search"), list = document.getElementById("search-results");
  function search(q) {
    var index = window.EVALBOOK_INDEX || [];
    var words = q.toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    var hits = [];
    index.forEach(function (e) {
      var t = e.t.toLowerCase(), x = (e.x || "").toLowerCase(), score = 0;
      for (var i = 0; i < words.length; i++) {
        var w = words[i];
        if (t === w) score += 20;
        else if (t.indexOf(w) >= 0) score += 10;
        else if (x.indexOf(w) >= 0) score += 1;
        else return;
      }
      hits.push({ e: e, s: score });
    });
    hits.sort(function (a, b) { return b.s - a.s || a.e.t.localeCompare(b.e.t); });
    return hits.slice(0, 12).map(function (h) { return h.e; });
  }
  window.evalbookSearch = search;
  // The search box is a combobox: arrow keys move through the results
  // (aria-activedescendant), Enter opens one, Escape closes the list, and
  // a live region says how many were found.
  var status = document.getElementById("search-status");
  if (input && list) {
    var base = (document.querySelector("a.brand") || { getAttribute: function () { return "index.html"; } }).getAttribute("href").replace(/index\.html$/, "");
    var active = -1;
    var close = function () {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    };
    var mark = function (i) {
      var items = list.children;
      if (!items.length) return;
      active = (i + items.length) % items.length;
      for (var k = 0; k < items.length; k++) items[k].setAttribute("aria-selected", k === active ? "true" : "false");
      input.setAttribute("aria-activedescendant", items[active].id);
      items[active].scrollIntoView({ block: "nearest" });
    };
    input.addEventListener("input", function () {
      var hits = search(input.value);
      list.innerHTML = "";
      hits.forEach(function (e, i) {
        var li = document.createElement("li"), a = document.createElement("a"), k = document.createElement("span");
        li.id = "search-hit-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        a.href = document.body.classList.contains("single-file") ? e.u.replace(/^([^#]+)\.html(#.*)?$/, function (m, p, f) { return "#p-" + p + (f ? "--" + f.slice(1) : ""); }) : base + e.u;
        a.tabIndex = -1;
        a.textContent = e.t;
        k.className = "k";
        k.textContent = e.k;
        a.appendChild(k);
        li.appendChild(a);
        list.appendChild(li);
      });
      active = -1;
      input.removeAttribute("aria-activedescendant");
      list.hidden = hits.length === 0;
      input.setAttribute("aria-expanded", hits.length ? "true" : "false");
      if (status) status.textContent = input.value.trim() ? (hits.length ? hits.length + (hits.length === 1 ? " result" : " results") : "No results") : "";
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "ArrowDown" && list.hidden && list.children.length) {
        ev.preventDefault(); // reopen the list Escape closed
        list.hidden = false;
        input.setAttribute("aria-expanded", "true");
        mark(0);
      } else if (ev.key === "ArrowDown" && !list.hidden) { ev.preventDefault(); mark(active + 1); }
      else if (ev.key === "ArrowUp" && !list.hidden) { ev.preventDefault(); mark(active - 1); }
      else if (ev.key === "Enter" && list.firstChild) {
        ev.preventDefault();
        window.location.href = list.children[Math.max(active, 0)].firstChild.href;
        if (document.body.classList.contains("single-file")) close();
      } else if (ev.key === "Escape" && !list.hidden) {
        ev.preventDefault(); // the first Escape closes the list, the next clears the box
        close();
      }
    });
    input.addEventListener("blur", function () { setTimeout(close, 200); });
  }
  // Single file: every page is a section; the hash picks the one shown.
  var single = document.body.classList.contains("single-file");
  if (single) {
    var sections = Array.prototype.slice.call(document.querySelectorAll(".sf-page"));
    var show = function () {
      var id = decodeURIComponent(location.hash.slice(1)) || "p-index";
      var target = document.getElementById(id);
      var page = target && (target.classList.contains("sf-page") ? target : target.closest(".sf-page"));
      if (target && !page) { target.focus(); return; } // the skip link: stay on the page shown
      if (!page) page = document.getElementById("p-index");
      sections.forEach(function (s) { s.hidden = s !== page; });
      document.querySelectorAll(".side a").forEach(function (a) {
        if (a.getAttribute("href") === "#" + page.id) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
      });
      draw();
      if (target && target !== page) target.scrollIntoView(); else window.scrollTo(0, 0);
    };
    window.addEventListener("hashchange", show);
    show();
  } else {
    draw();
  }
  window.evalbookCharts = function () { return charts.map(function (c) { return c.chart; }); };
  window.evalbookDrawChart = function (el) { drawOne(el, true); }; // the Explore page draws the charts it computes
  window.evalbookMarkScrolls = markScrolls; // and marks the tables it draws that scroll sideways
})();

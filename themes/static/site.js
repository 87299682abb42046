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
  var charts = [];
  function draw() {
    if (!window.echarts) return;
    charts.forEach(function (c) { c.dispose(); });
    charts = [];
    var nodes = document.querySelectorAll(".echart[data-option]");
    for (var i = 0; i < nodes.length; i++) {
      var el = nodes[i];
      var option = JSON.parse(el.getAttribute("data-option"));
      var chart = window.echarts.init(el, dark() ? "dark" : null, { renderer: "canvas" });
      if (dark()) option.backgroundColor = "transparent";
      chart.setOption(option);
      charts.push(chart);
    }
    if (nodes.length) root.classList.add("charts-on");
  }
  window.addEventListener("resize", function () { charts.forEach(function (c) { c.resize(); }); });
  var toggle = document.getElementById("theme-toggle");
  if (toggle) toggle.addEventListener("click", function () {
    root.dataset.theme = dark() ? "light" : "dark";
    try { localStorage.setItem("evalbook-theme", root.dataset.theme); } catch (e) {}
    draw();
  });
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var xv = x.getAttribute("data-v"), yv = y.getAttribute("data-v");
          var c;
          if (xv !== null && yv !== null) c = parseFloat(xv) - parseFloat(yv);
          else c = x.textContent.localeCompare(y.textContent);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  window.evalbookCharts = function () { return charts; };
  draw();
})();

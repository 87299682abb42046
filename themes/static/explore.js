// The Explore page: inflate the WebAssembly module (the build's own
// analyses, report/site/explore/wasm) from the page itself — a file://
// page may not fetch — keep the reader's view in the URL fragment, and
// draw the tables the module computes as the analysis pages draw theirs.
(function () {
  "use strict";
  var root = document.getElementById("explore");
  if (!root) return;
  // The page's own style, here so that the other pages' stylesheet (and
  // weight) stays as it was.
  var style = document.createElement("style");
  style.textContent = ".explore-controls fieldset{border:1px solid var(--line);border-radius:4px;margin:0 0 .8rem;padding:.4rem .8rem .6rem}" +
    ".explore-controls label{display:inline-block;white-space:nowrap;margin:.15rem 1rem .15rem 0}" +
    ".explore-controls button,.explore-banner button{font:inherit;color:var(--fg);background:var(--code);border:1px solid var(--line);border-radius:4px;padding:.2rem .7rem;min-height:2rem;cursor:pointer}" +
    ".explore-controls select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:4px;padding:.15rem .4rem}" +
    ".explore-banner{border-left:4px solid var(--accent-2);padding:.4rem .8rem;margin:0 0 1rem}" +
    "#explore-stability-progress{width:min(24rem,100%)}";
  document.head.appendChild(style);
  var data = JSON.parse(document.getElementById("explore-data").textContent);
  var form = document.getElementById("explore-form");
  var status = document.getElementById("explore-status");
  var results = document.getElementById("explore-results");
  var problems = document.getElementById("explore-problems");
  var banner = document.getElementById("explore-banner");
  var changes = document.getElementById("explore-changes");

  function checked(name) {
    var out = [];
    form.querySelectorAll('input[name="' + name + '"]').forEach(function (c) {
      if (c.checked) out.push(c.value);
    });
    return out;
  }

  // state is the view the controls show.
  function state() {
    return { metric: document.getElementById("explore-metric").value, datasets: checked("dataset"),
      methods: checked("method"), rules: checked("rule") };
  }

  function setChecked(name, ids) {
    form.querySelectorAll('input[name="' + name + '"]').forEach(function (c) {
      c.checked = ids.indexOf(c.value) >= 0;
    });
  }

  function show(s) {
    document.getElementById("explore-metric").value = s.metric;
    setChecked("dataset", s.datasets);
    setChecked("method", s.methods);
    setChecked("rule", s.rules || []);
  }

  var keys = { metric: "metric", datasets: "datasets", methods: "methods", rules: "rules" };

  // The fragment holds what differs from the published view, each id
  // URI-encoded, lists comma-separated: #datasets=a,b&rules=borda.
  function encode(s) {
    var p = data.published, parts = [];
    Object.keys(keys).forEach(function (k) {
      var v = s[k], pv = p[k];
      if (k === "metric") {
        if (v !== pv) parts.push("metric=" + encodeURIComponent(v));
        return;
      }
      if (k === "rules" && !data.aggregate) return;
      if (v.join("\u0000") !== (pv || []).join("\u0000")) {
        parts.push(k + "=" + v.map(encodeURIComponent).join(","));
      }
    });
    return parts.join("&");
  }

  function decode(hash) {
    var s = JSON.parse(JSON.stringify(data.published));
    if (!s.rules) s.rules = [];
    hash.replace(/^#/, "").split("&").forEach(function (part) {
      if (!part) return;
      var i = part.indexOf("="), k = part.slice(0, i), v = part.slice(i + 1);
      if (!keys[k] || i < 0) throw new Error("unknown part of the address: " + part);
      if (k === "metric") s.metric = decodeURIComponent(v);
      else s[k] = v === "" ? [] : v.split(",").map(decodeURIComponent);
    });
    return s;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // table draws a table as report/site's analysis template does.
  function table(t, num) {
    var wrap = el("div", "table-wrap");
    wrap.id = "x-tab-" + t.id;
    wrap.dataset.table = t.id;
    var scroll = el("div", "table-scroll");
    scroll.tabIndex = 0;
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", "Table " + num);
    var tab = el("table", "data" + (t.columns.length > 8 ? " compact" : ""));
    var cap = el("caption");
    cap.appendChild(el("span", "num", "Table " + num + ". "));
    cap.appendChild(document.createTextNode(t.title));
    tab.appendChild(cap);
    var tr = el("tr");
    var first = (t.rows || [])[0] || [];
    t.columns.forEach(function (c, i) {
      var th = el("th", first[i] && first[i].num ? "num" : "", c.label); // a numbers' header aligns with them
      th.scope = "col";
      if (c.label !== c.id) th.title = c.id;
      tr.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(tr);
    tab.appendChild(thead);
    var tbody = el("tbody");
    (t.rows || []).forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) {
        var td = el("td", c.num ? "num" + (c.mark ? " " + c.mark : "") : "");
        if (c.title) td.title = c.title;
        var text = c.mark === "best" ? el("strong", "", c.text) : c.mark === "second" ? el("u", "", c.text) : document.createTextNode(c.text);
        td.appendChild(text);
        if (c.mark === "tied") { var s = el("sup", "mark", "="); s.title = "tied for the best"; td.appendChild(s); }
        if (c.sig) { var g = el("sup", "mark", "*"); g.title = "significant"; td.appendChild(g); }
        if (c.count) { td.appendChild(document.createTextNode(" ")); var n = el("span", "count", "(" + c.count + ")"); n.title = "defined values of all"; td.appendChild(n); }
        row.appendChild(td);
      });
      tbody.appendChild(row);
    });
    tab.appendChild(tbody);
    scroll.appendChild(tab);
    if (t.more) wrap.appendChild(el("p", "table-note", "The first " + t.rows.length + " of " + t.more + " rows."));
    if (t.name && t.rows && t.rows.length > 20) {
      var d = el("details", "more-table");
      d.appendChild(el("summary", "", "Table " + num + ". " + t.title + " — show " + t.rows.length + " rows"));
      d.appendChild(scroll);
      wrap.appendChild(d);
    } else {
      wrap.appendChild(scroll);
    }
    return wrap;
  }

  // figure draws a figure the module computed (its ECharts option, from
  // the figure spec the analysis page's figure is drawn from) as the
  // analysis page's interactive chart: site.js's evalbookDrawChart
  // draws it in the page's theme, and again when the theme changes.
  // A figure's element is kept from view to view, so that its chart is
  // redrawn in the ECharts instance it has (a new instance per view costs
  // more than the view's computation).
  var figures = {};
  function figure(f, num) {
    var fig = figures[f.id];
    if (!fig) {
      fig = figures[f.id] = el("figure", "figure");
      fig.id = "x-fig-" + f.id;
      var div = el("div", "echart");
      div.setAttribute("role", "img");
      fig.appendChild(div);
      if (!window.echarts) {
        div.hidden = true;
        fig.appendChild(el("p", "notes", "The chart library is not part of this site: the diagram is on the analysis's page."));
      }
      fig.appendChild(el("figcaption"));
    }
    var chart = fig.querySelector(".echart");
    chart.style.height = f.height + "px";
    chart.setAttribute("data-option", JSON.stringify(f.option));
    chart.setAttribute("aria-label", f.alt);
    var cap = fig.querySelector("figcaption");
    cap.textContent = "";
    cap.appendChild(el("span", "num", "Figure " + num + ". "));
    cap.appendChild(document.createTextNode(f.caption));
    return fig;
  }

  // The module runs in two Web Workers, so the page never waits for it:
  // the quick one computes each view without the Bayesian signed-rank
  // test (milliseconds), the full one with it once the quick view is in
  // (seconds on a large study; a newer view stops it and starts it
  // again). seq numbers the views: a result of an older view is dropped.
  var module = null, quick = null, full = null, fullBusy = false;
  var seq = 0, changed = 0, drawnFull = 0, pendingFull = "";
  var stabRoot = document.getElementById("explore-stability");
  var stab = null, stabBusy = false, pendingStab = "", stabilityOn = !!(data.stability && stabRoot);
  var stabStatus = document.getElementById("explore-stability-status");
  var stabProgress = document.getElementById("explore-stability-progress");
  var stabResults = document.getElementById("explore-stability-results");
  var notice = ""; // why the address's view is not shown, until the next change
  var bayesian = !!(data.critical_difference && data.critical_difference.options.Bayesian);
  var dataText = document.getElementById("explore-data").textContent;

  // workerMain is the workers' script (after the Go toolchain's
  // wasm_exec.js): load the study, then answer views.
  function workerMain() {
    var loaded;
    onmessage = function (e) {
      var m = e.data;
      if (m.module) {
        var go = new Go();
        loaded = WebAssembly.instantiate(m.module, go.importObject).then(function (inst) {
          go.run(inst);
          var err = evalbookExploreLoad(m.data);
          if (err) throw new Error(err);
        });
        loaded.catch(function (err) { postMessage({ seq: -1, error: String(err && err.message || err) }); });
        return;
      }
      loaded.then(function () {
        var t0 = performance.now();
        if (m.stability) {
          var last = 0;
          var json = evalbookExploreStability(m.state, function (label, done, total) {
            var now = performance.now();
            if (now - last > 100 || done === total) { // at most ten a second
              last = now;
              postMessage({ seq: m.seq, progress: [label, done, total] });
            }
          });
          postMessage({ seq: m.seq, stability: true, json: json, ms: performance.now() - t0 });
          return;
        }
        var json = evalbookExplore(m.state, m.quick);
        postMessage({ seq: m.seq, quick: m.quick, json: json, ms: performance.now() - t0 });
      });
    };
  }

  function newWorker() {
    var src = window.evalbookWasmExec + "\n(" + workerMain.toString() + ")();";
    var w = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })));
    w.onmessage = onResult;
    w.onerror = function (e) { fail("the analyses stopped: " + (e.message || "an error in the worker")); };
    w.postMessage({ module: module, data: dataText });
    return w;
  }

  function fail(msg) {
    status.textContent = msg;
    root.dataset.state = "error";
  }

  // redraw sends the view the controls show to the workers.
  function redraw(fromHash) {
    if (!module) return;
    var s = state();
    if (!fromHash) {
      notice = "";
      var h = encode(s);
      history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
    }
    seq++;
    changed = performance.now();
    var msg = JSON.stringify(s);
    root.dataset.state = "computing";
    pendingFull = bayesian ? msg : "";
    // (a test's hook: the browser tests that compare only the tables of
    // many views turn the stability analysis off but for the last one)
    pendingStab = stabilityOn && !window.evalbookExploreNoStability ? msg : "";
    if (fullBusy) { // an older view's: stop it, so the new one gets the CPU
      full.terminate();
      full = newWorker();
      fullBusy = false;
    }
    if (stabBusy) {
      stab.terminate();
      stab = newWorker();
      stabBusy = false;
    }
    if (stabilityOn) {
      stabRoot.dataset.state = "waiting";
      stabStatus.textContent = "The stability analysis starts once the leaderboard is drawn…";
      stabResults.textContent = "";
      stabProgress.value = 0;
    }
    quick.postMessage({ seq: seq, state: msg, quick: bayesian });
  }

  function onResult(e) {
    var m = e.data;
    if (m.error) return fail("The analyses could not be loaded: " + m.error);
    if (m.progress || m.stability) return onStability(m);
    if (!m.quick) fullBusy = false;
    if (m.seq !== seq || m.quick && drawnFull === seq) return;
    if (!m.quick || !bayesian) drawnFull = seq;
    draw(JSON.parse(m.json), m.ms, performance.now() - changed);
    // the background work starts once the quick view is drawn: on a
    // machine of two cores, workers started before would take the CPU
    // the page needs to draw it
    if (m.quick && pendingFull) { // the full view
      fullBusy = true;
      full.postMessage({ seq: seq, state: pendingFull, quick: false });
      pendingFull = "";
    }
    if (pendingStab) { // and the stability analysis
      stabBusy = true;
      stab.postMessage({ seq: seq, state: pendingStab, stability: true });
      pendingStab = "";
      stabRoot.dataset.state = "computing";
      stabStatus.textContent = "Perturbing the view…";
    }
  }

  // onStability shows the stability worker's progress, then its tables.
  function onStability(m) {
    if (m.stability) stabBusy = false;
    if (m.seq !== seq) return;
    if (m.progress) {
      var p = m.progress;
      stabProgress.max = p[2];
      stabProgress.value = p[1];
      stabStatus.textContent = "Perturbing the view: " + p[0] + ", " + p[1] + " of " + p[2] + "…";
      return;
    }
    var r = JSON.parse(m.json);
    stabResults.textContent = "";
    if (r.error) {
      stabStatus.textContent = "The stability analysis cannot run on this view: " + r.error;
      stabRoot.dataset.state = "error";
      return;
    }
    var frag = document.createDocumentFragment(), charts = [];
    (r.tables || []).forEach(function (t, i) { frag.appendChild(table(t, "S" + (i + 1))); });
    // the curves of each perturbation, as on the stability page
    (r.figures || []).forEach(function (f, i) {
      var fig = figure(f, "S" + (i + 1));
      frag.appendChild(fig);
      charts.push(fig.querySelector(".echart"));
    });
    stabResults.appendChild(frag);
    if (window.evalbookDrawChart && window.echarts) charts.forEach(window.evalbookDrawChart);
    if (window.evalbookMarkScrolls) window.evalbookMarkScrolls(); // its wide tables say so
    stabProgress.value = stabProgress.max;
    stabStatus.textContent = r.problems && r.problems.length ? "Not computed on this view: " + r.problems.join("; ") + "." :
      "Recomputed in " + (m.ms / 1000).toFixed(1) + " s in the background.";
    stabRoot.dataset.state = "ready";
    var times = window.evalbookExploreTimes = window.evalbookExploreTimes || {};
    times[seq] = times[seq] || {};
    times[seq].stability = performance.now() - changed;
  }

  // draw shows a result: its tables, what it could not compute, how the
  // view differs from the published one.
  function draw(r, ms, since) {
    var s = JSON.parse(JSON.stringify(state()));
    results.textContent = "";
    problems.hidden = true;
    if (r.error) {
      fail("This view cannot be computed: " + r.error);
      return;
    }
    var frag = document.createDocumentFragment();
    var lastAnalysis = "", charts = [], figNum = 0;
    // an analysis's figures follow its tables, as on its page
    var figuresOf = function (analysis) {
      (r.figures || []).forEach(function (f) {
        if (f.analysis !== analysis) return;
        var fig = figure(f, ++figNum);
        frag.appendChild(fig);
        charts.push(fig.querySelector(".echart"));
      });
    };
    (r.tables || []).forEach(function (t, i) {
      if (t.analysis !== lastAnalysis) {
        figuresOf(lastAnalysis);
        lastAnalysis = t.analysis;
        frag.appendChild(el("h2", "", t.analysis === (data.aggregate && data.aggregate.id) ? "Leaderboard" : "Significance"));
      }
      frag.appendChild(table(t, i + 1));
    });
    figuresOf(lastAnalysis);
    results.appendChild(frag);
    // the CD diagram is drawn here, before the redraw's time is taken:
    // the ≤ 100 ms of a change include it
    var tl = performance.now();
    void results.offsetHeight; // the tables laid out, so the chart's time is its own
    var layoutMs = performance.now() - tl;
    var t0 = performance.now();
    if (window.evalbookDrawChart && window.echarts) charts.forEach(window.evalbookDrawChart);
    if (window.evalbookMarkScrolls) window.evalbookMarkScrolls(); // its wide tables say so
    var chartMs = performance.now() - t0;
    var drawn = performance.now() - changed;
    if (r.problems && r.problems.length) {
      problems.textContent = "Not computed on this view: " + r.problems.join("; ") + ".";
      problems.hidden = false;
    }
    banner.hidden = !(r.changes && r.changes.length);
    changes.textContent = (r.changes || []).join("; ") + ".";
    var pending = r.pending && r.pending.length;
    status.textContent = notice + s.datasets.length + " datasets × " + s.methods.length + " methods, recomputed in " + Math.round(drawn) + " ms" +
      (pending ? "; " + r.pending.join(", ") + " is being computed…" : ".");
    root.dataset.state = pending ? "partial" : "ready";
    root.dataset.draws = String(Number(root.dataset.draws || 0) + 1);
    // what the page took (make bench-pages prints it): the module's
    // computation, and from the change to the tables drawn in the page
    window.evalbookExploreLast = { ms: ms, drawn: drawn, chart: chartMs, quick: !!pending, seq: seq, state: s, result: r };
    var times = window.evalbookExploreTimes = window.evalbookExploreTimes || {};
    times[seq] = times[seq] || {};
    if (!times[seq].quick) { // the first draw of the view
      times[seq].quick = drawn;
      times[seq].compute = ms;
      times[seq].chart = chartMs;
      times[seq].message = since - ms; // to the worker and back, the result parsed
      times[seq].tables = tl - changed - since;
      times[seq].layout = layoutMs;
    }
    if (!pending) times[seq].full = drawn;
  }

  // known throws unless the controls offer every id of s: a fragment
  // naming what the study lacks is no view of it.
  function known(s) {
    var has = function (sel) { return !!form.querySelector(sel); };
    if (!has('#explore-metric option[value="' + CSS.escape(s.metric) + '"]')) throw new Error("no metric " + s.metric);
    [["dataset", s.datasets], ["method", s.methods], ["rule", s.rules]].forEach(function (p) {
      p[1].forEach(function (id) {
        if (!has('input[name="' + p[0] + '"][value="' + CSS.escape(id) + '"]')) throw new Error("no " + p[0] + " " + id);
      });
    });
    return s;
  }

  function fromHash() {
    try {
      show(known(decode(location.hash)));
    } catch (e) {
      show(data.published);
      notice = "The address names no view of this study (" + e.message + "); the published view is shown. ";
    }
    redraw(true);
  }

  form.addEventListener("change", function () { redraw(false); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  form.querySelectorAll("button[data-all],button[data-none]").forEach(function (b) {
    b.addEventListener("click", function () {
      var name = b.dataset.all || b.dataset.none;
      form.querySelectorAll('input[name="' + name + '"]').forEach(function (c) { c.checked = !!b.dataset.all; });
      redraw(false);
    });
  });
  document.getElementById("explore-reset").addEventListener("click", function () {
    show(data.published);
    redraw(false);
  });
  window.addEventListener("hashchange", fromHash);

  function bytes(b64) {
    var bin = atob(b64), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  async function start() {
    var gz = bytes(window.evalbookExploreWasm);
    var stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"));
    module = await WebAssembly.compile(await new Response(stream).arrayBuffer());
    quick = newWorker();
    if (bayesian) full = newWorker();
    if (stabilityOn) stab = newWorker();
    fromHash();
  }

  if (!window.DecompressionStream || !window.WebAssembly || !window.Worker) {
    status.textContent = "This browser lacks WebAssembly, Web Workers or DecompressionStream; the published analyses are on their own pages.";
    root.dataset.state = "error";
    return;
  }
  start().catch(function (e) {
    status.textContent = "The analyses could not be loaded: " + e.message;
    root.dataset.state = "error";
  });
})();

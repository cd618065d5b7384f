/* ragreport: draws the K-sweep charts and runs the per-query tables. Plain JavaScript, no network. */
(function () {
  "use strict";

  // The document's end: every element parsed and every deferred script (plotly.js, the text) run.
  var parsed = new Promise(function (resolve) {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", function () { resolve(); });
    } else {
      resolve();
    }
  });

  function readJSON(id) {
    return JSON.parse(document.getElementById(id).textContent);
  }

  // A data block gzipped in base64 (the query view's), inflated by the browser: a promise of its JSON.
  function readPacked(id) {
    var block = document.getElementById(id);
    return inflate(block.textContent, block.getAttribute("data-unsupported"));
  }

  function inflate(text, unsupported) {
    if (typeof DecompressionStream === "undefined" || typeof Response === "undefined") {
      return Promise.reject(new Error(unsupported));
    }
    var binary = atob(text);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  // The documents' text, once per report: the single file's block, or the site's assets/texts-*.js
  // (which sets window.ragreportTexts). A promise of a function from an id to [title, snippet, text],
  // or undefined for an id without text; the snippet is cut where the report said.
  var textsRead = null;
  function readTexts() {
    if (!textsRead) { textsRead = parsed.then(unpackTexts); }
    return textsRead;
  }

  function unpackTexts() {
    var block = document.getElementById("report-texts");
    var source = block ? { data: block.textContent, unsupported: block.getAttribute("data-unsupported") }
                       : window.ragreportTexts;
    if (!source) { return function () { return undefined; }; }
    return inflate(source.data, source.unsupported).then(function (table) {
      var at = new Map();  // not an object: an id such as __proto__ or valueOf is a key like any other
      table.ids.forEach(function (id, i) { if (!at.has(id)) { at.set(id, i); } });
      return function (id) {
        var i = at.get(id);
        if (i === undefined) { return undefined; }
        var text = table.texts[i], cut = table.snippet[i];
        return [table.titles[i], cut === null ? text : text.slice(0, cut) + "\u2026", text];
      };
    });
  }

  // A sentence of the report's wording with its {name} slots filled in (the words come with the data).
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (slot, name) { return String(values[name]); });
  }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  var AXIS = /^[xy]axis\d*$/;

  // Small multiples (a layout.grid) keep their panels' height; on a narrow screen they fall to two
  // columns, then one. Returns true when the grid changed.
  function fitGrid(figure, width) {
    var grid = figure.layout.grid;
    if (!grid) { return false; }
    if (!figure.__grid) {
      figure.__grid = { columns: grid.columns, rows: grid.rows, panel: (figure.layout.height - 40) / grid.rows };
    }
    var base = figure.__grid, panels = base.columns * base.rows;
    var columns = width < 560 ? 1 : (width < 860 ? Math.min(2, base.columns) : base.columns);
    var used = figure.data.reduce(function (n, t) { return Math.max(n, Number((t.xaxis || "x").slice(1) || 1)); }, 1);
    panels = Math.min(panels, used);
    var rows = Math.ceil(panels / columns);
    if (columns === grid.columns && rows === grid.rows) { return false; }
    grid.columns = columns;
    grid.rows = rows;
    grid.ygap = rows > 3 ? 0.28 : base.rows > 1 ? 0.32 : grid.ygap;
    figure.layout.height = Math.round(base.panel * rows + 40);
    return true;
  }

  // A title too long for the width breaks after its colon and before "against" or "by" (plotly does not
  // wrap titles); the top margin grows by the lines added. Returns true when the title changed.
  function fitTitle(figure, width) {
    var title = figure.layout.title, margin = figure.layout.margin;
    if (!title || !title.text || !margin) { return false; }
    if (!figure.__title) { figure.__title = { text: title.text, top: margin.t }; }
    var base = figure.__title, size = (title.font && title.font.size) || 15, text = base.text;
    if (base.text.replace(/<[^>]*>|[\u2068\u2069]/g, "").length * size * 0.56 > width - 16) {  // isolates take no room
      text = base.text.replace(/: /, ":<br>").replace(/ against /, "<br>against ");
      if (text === base.text) { text = base.text.replace(/ by (?!.* by )/, "<br>by "); }
    }
    if (text === title.text) { return false; }
    title.text = text;
    // each added line: its height and a little room, so the title clears a panel's own label below it
    margin.t = base.top + (text.split("<br>").length - 1) * (Math.round(size * 1.35) + 16);
    return true;
  }

  // Rows named on the axis (the forest plot) keep their names on a wide screen; on a narrow one each
  // name moves above its row, so the axis gets the whole width. Returns true when that changed.
  function fitRows(figure, width, ink) {
    var meta = figure.layout.meta;
    if (!meta || !meta.labelsAbove) { return false; }
    if (!figure.__rows) {
      figure.__rows = { height: figure.layout.height, narrow: false, axis: figure.layout.xaxis.title, bottom: figure.layout.margin.b };
    }
    var narrow = width < 560;
    if (narrow === figure.__rows.narrow) { return false; }
    figure.__rows.narrow = narrow;
    var names = figure.data[0].y;
    figure.layout.yaxis.showticklabels = !narrow;
    figure.layout.annotations = narrow ? names.map(function (name) {
      return { text: name, x: 0, xref: "paper", xanchor: "left", y: name, yref: "y", yshift: 16,
               showarrow: false, font: { size: 12, color: ink } };
    }) : [];
    // The title above says what the axis holds: on a phone the axis' own title gives its room to the rows.
    figure.layout.xaxis.title = narrow ? { text: "" } : figure.__rows.axis;
    figure.layout.margin.b = narrow ? figure.__rows.bottom - 18 : figure.__rows.bottom;
    figure.layout.height = figure.__rows.height + (narrow ? 4 * names.length - 18 : 0);
    return true;
  }

  // A legend under the plot keeps its distance in pixels from the plot's bottom edge, whatever the
  // plot's height (a title that wraps on a narrow screen takes height from it): placed as a share of
  // the plot's height, it would climb onto the axis title. Returns true when it moved.
  function fitLegend(figure) {
    var legend = figure.layout.legend, margin = figure.layout.margin;
    if (!legend || typeof legend.y !== "number" || legend.y >= 0 || !margin || !figure.layout.height) { return false; }
    var plot = figure.layout.height - margin.t - margin.b;
    if (!figure.__legend) { figure.__legend = { gap: -legend.y * plot }; }
    var y = -figure.__legend.gap / Math.max(plot, 1);
    if (Math.abs(y - legend.y) < 1e-6) { return false; }
    legend.y = y;
    return true;
  }

  // Once drawn, the figure's bottom margin holds its legend (the distance above and every row of it:
  // long run names take several rows on a phone); the figure grows by as much, the plot keeps its
  // height, so nothing climbs onto the axis title and plotly need not grow the margin itself.
  function settleLegend(item) {
    var figure = item.figure, base = figure.__legend;
    var node = item.holder.querySelector("g.legend");
    if (!base || !node) { return; }
    if (base.bottom === undefined) { base.bottom = figure.layout.margin.b; }
    var bottom = Math.max(base.bottom, Math.ceil(base.gap + node.getBoundingClientRect().height + 10));
    if (bottom === figure.layout.margin.b) { return; }
    figure.layout.height += bottom - figure.layout.margin.b;
    figure.layout.margin.b = bottom;
    sizeHolder(item.holder, figure);
    window.Plotly.relayout(item.holder, { "margin.b": bottom, height: figure.layout.height });
  }

  // Every axis (xaxis, xaxis2, ..., yaxis7), not only the first, takes the page's colours.
  function colourAxes(layout, ink, grid) {
    Object.keys(layout).forEach(function (key) {
      if (!AXIS.test(key) || !layout[key]) { return; }
      var axis = layout[key];
      axis.gridcolor = grid;
      axis.linecolor = grid;
      axis.zerolinecolor = grid;
      axis.tickcolor = grid;
      axis.color = ink;
    });
    (layout.annotations || []).forEach(function (note) { note.font = Object.assign({}, note.font, { color: ink }); });
    (layout.updatemenus || []).forEach(function (menu) {
      menu.bgcolor = layout.paper_bgcolor && layout.paper_bgcolor !== "rgba(0,0,0,0)" ? layout.paper_bgcolor : menu.bgcolor;
    });
  }

  var drawn = [];
  var PRINT_WIDTH = 660;  // px: an A4 or Letter page's width between its default margins, less a little

  function sizeHolder(holder, figure) {
    // The box is exactly as tall as the figure, before and after any resize: nothing overlaps.
    if (figure.layout.height) { holder.style.height = figure.layout.height + "px"; }
  }

  function chartsMissing(holders, message) {
    holders.forEach(function (holder) {
      holder.appendChild(el("p", { "class": "chart-missing" }, message));
    });
  }

  function drawCharts() {
    var holders = document.querySelectorAll("[data-figure]");
    if (!holders.length) { return; }
    if (typeof window.Plotly === "undefined" && window.ragreportPlotly) {
      // The single file unpacks plotly.js first: draw once it has run, else say why not.
      window.ragreportPlotly.then(drawCharts, function (error) { chartsMissing(holders, error.message); });
      return;
    }
    if (typeof window.Plotly === "undefined") {
      chartsMissing(holders, document.getElementById("main").getAttribute("data-charts-missing") || "");
      return;
    }
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    var ink = dark ? "#e4e7eb" : "#1d2126";
    var grid = dark ? "#30363d" : "#e6e9ec";
    holders.forEach(function (holder) {
      var figure = readJSON(holder.getAttribute("data-figure"));
      figure.layout.font = { color: ink, family: "system-ui, sans-serif" };
      figure.layout.autosize = true;
      if (dark) {
        figure.layout.paper_bgcolor = "rgba(0,0,0,0)";
        figure.layout.plot_bgcolor = "rgba(0,0,0,0)";
        (figure.layout.updatemenus || []).forEach(function (menu) {
          menu.bgcolor = "#1d2227"; menu.bordercolor = grid; menu.font = { color: ink };
        });
      }
      fitLegend(figure);  // first: its distance is the one the figure was made with
      fitGrid(figure, holder.clientWidth || window.innerWidth);
      fitTitle(figure, holder.clientWidth || window.innerWidth);
      fitRows(figure, holder.clientWidth || window.innerWidth, ink);
      fitLegend(figure);
      colourAxes(figure.layout, ink, grid);
      sizeHolder(holder, figure);
      var item = { holder: holder, figure: figure };
      window.Plotly.newPlot(holder, figure.data, figure.layout, figure.config).then(function () { settleLegend(item); });
      drawn.push(item);
      var queryHref = document.getElementById("main").getAttribute("data-query-href");
      if (queryHref && figure.layout.meta && figure.layout.meta.opensQuery) {
        holder.on("plotly_click", function (event) {
          var point = event.points && event.points[0];
          if (!point || point.customdata === undefined) { return; }
          // The ids are HTML-escaped for plotly's labels; an inert document reads them back as text.
          var id = new DOMParser().parseFromString(String(point.customdata), "text/html").documentElement.textContent;
          window.location.href = queryHref + encodeURIComponent(id);
        });
      }
    });
    // Paper is narrower than most screens, and the print layout comes after the script ran: before
    // printing each chart is drawn at a width an A4 or Letter page holds, after it fits the screen.
    window.addEventListener("beforeprint", function () {
      drawn.forEach(function (item) {
        window.Plotly.relayout(item.holder, { width: Math.min(item.holder.clientWidth || PRINT_WIDTH, PRINT_WIDTH) });
      });
    });
    window.addEventListener("afterprint", function () {
      drawn.forEach(function (item) {
        window.Plotly.relayout(item.holder, { width: item.holder.clientWidth });
      });
    });
    var pending = null;
    window.addEventListener("resize", function () {
      if (pending) { window.clearTimeout(pending); }
      pending = window.setTimeout(function () {
        pending = null;
        drawn.forEach(function (item) {
          // The figure's width and height are set outright from its box: nothing is left to autosize.
          var width = item.holder.clientWidth || window.innerWidth;
          var regrid = fitGrid(item.figure, width), retitle = fitTitle(item.figure, width);
          var rerow = fitRows(item.figure, width, ink);
          var relegend = fitLegend(item.figure);
          var layout = item.figure.layout;
          sizeHolder(item.holder, item.figure);
          var update = { width: item.holder.clientWidth, height: layout.height };
          if (regrid) { update.grid = layout.grid; }
          if (retitle) { update["title.text"] = layout.title.text; update["margin.t"] = layout.margin.t; }
          if (rerow) { update.annotations = layout.annotations; update["yaxis.showticklabels"] = layout.yaxis.showticklabels; }
          if (relegend) { update["legend.y"] = layout.legend.y; }
          window.Plotly.relayout(item.holder, update).then(function () { settleLegend(item); });
        });
      }, 60);
    });
  }

  // One query, every run: its text and judgments, each run's top K side by side with marks, grades,
  // text and the move against the baseline, and each run's figures. Opened by the address #q=ID.
  function QueryView(root) {
    readPacked(root.getAttribute("data-query-view")).then(function (data) {
      var texts = data.with_texts ? readTexts() : Promise.resolve(function () { return undefined; });
      return texts.then(function (textOf) { drawQueryView(root, data, textOf); },
        function (error) {
          drawQueryView(root, data, function () { return undefined; });
          root.appendChild(el("p", { "class": "notice" }, error.message));
        });
    }, function (error) { root.appendChild(el("p", { "class": "notice" }, error.message)); });
  }

  function drawQueryView(root, data, textOf) {
    var words = data.words;
    var byId = new Map();  // not an object: an id such as __proto__ or valueOf is a key like any other
    var columns = data.queries;  // one list per field, a query's values at one position in each
    columns.id.forEach(function (id, i) { if (!byId.has(id)) { byId.set(id, i); } });
    var withText = new Set(columns.with_text);
    function query(i) {
      return {
        id: columns.id[i], text: columns.text[i], judged: columns.judged[i], relevant: columns.relevant[i],
        unshown: columns.unshown[i], unshown_count: columns.unshown_count[i],
        tops: columns.tops.map(function (top) { return top[i]; }),
        values: columns.values.map(function (values) { return values[i]; }),
        with_text: withText.has(i), meta: columns.meta ? columns.meta[i] : null,
        detail: columns.detail ? columns.detail[i] : null
      };
    }
    var base = data.baseline === null ? -1 : data.runs.indexOf(data.baseline);
    var form = el("form", { "class": "query-pick" });
    var label = el("label", null, words.ask + " ");
    var input = el("input", { type: "search", name: "q", autocomplete: "off" });
    label.appendChild(input);
    form.appendChild(label);
    form.appendChild(el("button", { type: "submit" }, words.open));
    var body = el("div", { "class": "query-body" });
    root.appendChild(form);
    root.appendChild(body);

    function fmt(value) { return value === null || value === undefined ? words.not_scored : value.toFixed(3); }
    function signed(value) {
      var text = Math.abs(value).toFixed(3);
      return text === "0.000" ? text : (value > 0 ? "+" : "-") + text;
    }

    // One column per run, the baseline first; under each candidate's figure its difference from the
    // baseline's, so that the differences stay in view however many runs there are (on a phone the
    // rows become cards: a metric, then each run's figure and difference).
    function figures(q, order) {
      var table = el("table", { "class": "query-figures" });
      var head = el("tr");
      head.appendChild(el("th", { scope: "col" }, words.metric));
      order.forEach(function (r) { head.appendChild(el("th", { scope: "col", "class": "num" }, data.runs[r])); });
      var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
      var tbody = el("tbody");
      data.metrics.forEach(function (metric, m) {
        var tr = el("tr");
        tr.appendChild(el("th", { scope: "row" }, metric));
        order.forEach(function (r) {
          var values = q.values[r];
          var td = el("td", { "class": "num", "data-run": data.runs[r] });
          td.appendChild(el("span", { "class": "value" }, values ? fmt(values[m]) : words.not_scored));
          if (base >= 0 && r !== base) {
            var theirs = q.values[base];
            var delta = values && theirs ? values[m] - theirs[m] : null;
            var css = "delta" + (delta === null ? "" : delta > 1e-9 ? " gain" : delta < -1e-9 ? " loss" : "");
            td.appendChild(el("span", { "class": css, title: data.runs[r] + " " + words.minus + " " + data.baseline },
              delta === null ? words.not_scored : signed(delta)));
          }
          tr.appendChild(td);
        });
        tbody.appendChild(tr);
      });
      table.appendChild(tbody);
      return table;
    }

    function list(q, r, grades, baseRank) {
      var column = el("div", { "class": "query-run" + (r === base ? " is-baseline" : "") });
      var heading = el("h4", null, data.runs[r]);
      if (r === base) { heading.appendChild(el("span", { "class": "baseline-mark" }, " " + words.baseline)); }
      column.appendChild(heading);
      var top = q.tops[r];
      if (top === null) { column.appendChild(el("p", { "class": "muted" }, words.not_in_run)); return column; }
      if (!top.length) { column.appendChild(el("p", { "class": "muted" }, words.nothing)); return column; }
      var ol = el("ol", { "class": "ranking" });
      var seen = {};
      top.forEach(function (doc, rank) {
        var grade = grades[doc];
        var mark = seen[doc] ? 3 : grade === undefined ? 2 : grade >= data.level ? 0 : 1;
        seen[doc] = true;
        var name = data.marks[mark];
        var li = el("li", { "class": "item is-" + name.replace(/ /g, "-") });
        var line = el("div", { "class": "item-line" });
        line.appendChild(el("span", { "class": "rank" }, rank + 1));
        line.appendChild(el("span", { "class": "item-mark" }, name + (grade !== undefined && mark !== 3 ? " (" + grade + ")" : "")));
        line.appendChild(el("span", { "class": "mono" }, data.docs[doc]));
        if (baseRank && r !== base) {
          var was = baseRank[doc];
          var move = was === undefined ? words.new : was > rank ? "\u25B2" + (was - rank) : was < rank ? "\u25BC" + (rank - was) : "";
          if (move) {
            var moveClass = was === undefined ? "new" : was > rank ? "up" : "down";
            line.appendChild(el("span", { "class": "move " + moveClass, title: moveClass === "new" ? words.new : (moveClass === "up" ? words.up : words.down) }, move));
          }
        }
        li.appendChild(line);
        var text = q.with_text ? textOf(data.docs[doc]) : null;
        if (text) {
          var box = el("div", { "class": "doc-text" });
          if (text[0]) { box.appendChild(el("strong", { "class": "doc-title" }, text[0])); }
          box.appendChild(el("span", { "class": "snippet" }, text[1]));
          if (text[2] !== text[1]) {
            var more = el("details");
            more.appendChild(el("summary", null, words.full_text));
            more.appendChild(el("p", { "class": "full-text" }, text[2]));
            box.appendChild(more);
          }
          li.appendChild(box);
        }
        ol.appendChild(li);
      });
      column.appendChild(ol);
      return column;
    }

    function show(id) {
      body.replaceChildren();
      input.value = id;
      var at = byId.get(id);
      if (at === undefined) { body.appendChild(el("p", { "class": "notice" }, words.unknown)); return; }
      var q = query(at);
      var title = el("h3", { "class": "query-title" });
      title.appendChild(el("span", { "class": "mono" }, q.id));
      if (q.text) { title.appendChild(el("span", { "class": "query-text" }, " " + q.text)); }
      body.appendChild(title);
      if (q.detail) {  // a topic's longer text, folded: the figures stay on the first screen
        var detail = el("details", { "class": "query-detail" });
        detail.appendChild(el("summary", null, words.detail));
        q.detail.split("\n\n").forEach(function (paragraph) { detail.appendChild(el("p", null, paragraph)); });
        body.appendChild(detail);
      }
      if (q.meta) {  // the query's metadata, as the slices cut by it: key and value, as given
        var meta = el("dl", { "class": "query-meta", "aria-label": words.meta });
        q.meta.forEach(function (pair) {
          meta.appendChild(el("dt", null, pair[0]));
          meta.appendChild(el("dd", null, String(pair[1])));
        });
        body.appendChild(meta);
      }
      body.appendChild(el("p", { "class": "muted" }, q.relevant + " " + (q.relevant === 1 ? words.relevant_one : words.relevant_count) + ". " +
        (base >= 0 ? words.moved : "")));
      var order = base >= 0 ? [base].concat(data.runs.map(function (_, r) { return r; }).filter(function (r) { return r !== base; }))
                            : data.runs.map(function (_, r) { return r; });
      var box = el("div", { "class": "scroll" });  // many runs on a wide screen: the figures scroll, the page does not
      box.appendChild(figures(q, order));
      body.appendChild(box);
      var grades = {};
      q.judged.forEach(function (pair) { grades[pair[0]] = pair[1]; });
      var baseRank = null;
      if (base >= 0 && q.tops[base]) {
        baseRank = {};
        q.tops[base].forEach(function (doc, rank) { if (baseRank[doc] === undefined) { baseRank[doc] = rank; } });
      }
      var grid = el("div", { "class": "query-runs" });
      order.forEach(function (r) { grid.appendChild(list(q, r, grades, baseRank)); });
      body.appendChild(grid);
      if (!q.with_text && data.with_texts) { body.appendChild(el("p", { "class": "text-note" }, words.no_text)); }
      if (q.unshown_count) {
        var p = el("p", { "class": "unshown" }, words.unshown + ": ");
        p.appendChild(el("span", { "class": "mono" }, q.unshown.join(", ")));
        if (q.unshown_count > q.unshown.length) {
          p.appendChild(document.createTextNode(" " + words.and_more.replace("{n}", String(q.unshown_count - q.unshown.length))));
        }
        body.appendChild(p);
      }
    }

    function fromHash() {
      var found = /^#q=(.*)$/.exec(window.location.hash);
      if (!found) {
        if (!body.childNodes.length) { body.appendChild(el("p", { "class": "muted" }, words.pick)); }
        return;
      }
      var id;
      try { id = decodeURIComponent(found[1]); } catch (error) { id = found[1]; }
      show(id);
      root.scrollIntoView();
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      window.location.hash = "q=" + encodeURIComponent(input.value.trim());
    });
    window.addEventListener("hashchange", fromHash);
    fromHash();
  }

  function formatCell(value, kind, statuses) {
    if (kind === "status") { return statuses[value]; }
    if (value === null || value === undefined) { return kind === "text" ? "" : "\u2013"; }
    if (kind === "score") { return value.toFixed(3); }
    if (kind === "delta") {  // as the report signs a difference: +0.012, -0.034, and 0.000 unsigned
      var text = Math.abs(value).toFixed(3);
      return text === "0.000" ? text : (value > 0 ? "+" : "-") + text;
    }
    return String(value);
  }

  // A box that scrolls sideways says when columns are out of view to its right: its right edge fades
  // and its button (which scrolls them in) shows, both gone once the last column is in view.
  // Returns the check, to run again when the rows change.
  function scrollCue(box, button) {
    function check() {
      var more = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
      box.classList.toggle("more-right", more);
      button.hidden = !more;
    }
    box.addEventListener("scroll", check, { passive: true });
    window.addEventListener("resize", check);
    button.addEventListener("click", function () { box.scrollBy({ left: box.clientWidth * 0.8, behavior: "smooth" }); });
    return check;
  }

  var CELL_CLASS = { id: "mono", status: "status", text: "query-text", count: "num", score: "num", delta: "num" };

  function QueryTable(root) {
    var data = readJSON(root.getAttribute("data-query-table"));
    var queryHref = root.getAttribute("data-query-href");
    var body = root.querySelector("tbody");
    var statusSelect = root.querySelector("select[name=status]");
    var idInput = root.querySelector("input[name=id]");
    var where = root.querySelector(".where");
    var prev = root.querySelector("button[data-page=prev]");
    var next = root.querySelector("button[data-page=next]");
    var headers = root.querySelectorAll("thead th[data-col]");
    var pageSize = 50;
    var words = data.words;
    var printing = false;
    var statusCol = data.kinds.indexOf("status");
    var textCol = data.kinds.indexOf("text");
    var state = { sortCol: -1, ascending: true, page: 0, order: [], open: {} };
    var textRows = {};
    (data.text_rows || []).forEach(function (row) { textRows[row] = true; });
    var textOf = function () { return undefined; };
    var textProblem = null;
    var cue = scrollCue(root.querySelector(".table-box"), root.querySelector(".scroll-cue"));
    // A number's header aligns with its numbers: right, as they are.
    for (var h = 0; h < headers.length; h++) {
      if (CELL_CLASS[data.kinds[h]] === "num") { headers[h].classList.add("num"); }
    }

    // Each column's order is worked out once, when it is first sorted by, and kept: ascending by its
    // value, ties in the rows' own order, a blank (missing or not a number) last; descending reverses
    // the values but not the ties, and blanks stay last. A filter keeps the order and drops rows from
    // it, so typing never sorts again.
    var orders = {};

    function sortValue(index, col) {
      var value = data.rows[index][col];
      return col === statusCol ? data.statuses[value] : value;
    }

    function columnOrder(col, ascending) {
      var cached = orders[col];
      if (!cached) {
        var n = data.rows.length, values = new Array(n), present = [], blank = [], numeric = true;
        for (var i = 0; i < n; i++) {
          var value = sortValue(i, col);
          values[i] = value;
          if (value === null || value === undefined || value !== value) { blank.push(i); continue; }
          present.push(i);
          if (typeof value !== "number") { numeric = false; }
        }
        var keys = numeric ? Float64Array.from(values, function (v) { return typeof v === "number" ? v : NaN; }) : values;
        var up = Int32Array.from(present).sort(function (a, b) {
          var x = keys[a], y = keys[b];
          return x === y ? a - b : (x < y ? -1 : 1);
        });
        cached = orders[col] = { keys: keys, up: up, blank: Int32Array.from(blank), asc: null, desc: null };
      }
      var name = ascending ? "asc" : "desc";
      if (!cached[name]) {
        var sorted = cached.up, keysOf = cached.keys, count = sorted.length;
        var out = new Int32Array(count + cached.blank.length), at = 0;
        if (ascending) {
          out.set(sorted, 0);
        } else {  // the runs of equal values from the last to the first, each in the rows' order
          var stop = count;
          while (stop > 0) {
            var begin = stop - 1;
            while (begin > 0 && keysOf[sorted[begin - 1]] === keysOf[sorted[stop - 1]]) { begin--; }
            out.set(sorted.subarray(begin, stop), at);
            at += stop - begin;
            stop = begin;
          }
        }
        out.set(cached.blank, count);
        cached[name] = out;
      }
      return cached[name];
    }

    // The filter's haystacks, lower-cased once, when the reader first types.
    var lowered = null;

    function haystacks() {
      if (!lowered) {
        lowered = { ids: new Array(data.rows.length), texts: textCol < 0 ? null : new Array(data.rows.length) };
        for (var i = 0; i < data.rows.length; i++) {
          var row = data.rows[i];
          lowered.ids[i] = String(row[0]).toLowerCase();
          if (textCol >= 0) { lowered.texts[i] = row[textCol] === null ? null : String(row[textCol]).toLowerCase(); }
        }
      }
      return lowered;
    }

    function filtered() {
      var status = statusSelect.value;
      var needle = idInput.value.trim().toLowerCase();
      var n = data.rows.length;
      var order = state.sortCol >= 0 ? columnOrder(state.sortCol, state.ascending) : null;
      if (status === "" && !needle) {
        if (order) { return order; }
        var all = new Int32Array(n);
        for (var j = 0; j < n; j++) { all[j] = j; }
        return all;
      }
      var wanted = status === "" ? -1 : Number(status);
      var found = needle ? haystacks() : null;
      var out = new Int32Array(n), kept = 0;
      for (var at = 0; at < n; at++) {
        var i = order ? order[at] : at;
        if (wanted >= 0 && data.rows[i][statusCol] !== wanted) { continue; }
        if (needle && found.ids[i].indexOf(needle) < 0 &&
            (!found.texts || found.texts[i] === null || found.texts[i].indexOf(needle) < 0)) {
          continue;
        }
        out[kept++] = i;
      }
      return out.subarray(0, kept);
    }

    // A query's top K as [id, grade or null, mark], from the columns the data holds them in: each id
    // once, the slots as indices into them, a digit a slot for its mark (4 more when judged), and
    // the judged slots' grades alone. Where each slot's grade is: the judged slots before it,
    // counted once, as far as the slots opened so far reach.
    var gradeAt = null, counted = 0;

    function slots(index) {
      var top = data.top, begin = index ? top.ends[index - 1] : 0, end = top.ends[index];
      if (!gradeAt) { gradeAt = new Int32Array(top.mark.length + 1); }
      for (; counted < end; counted++) {
        gradeAt[counted + 1] = gradeAt[counted] + (top.mark.charCodeAt(counted) >= 52 ? 1 : 0);
      }
      var out = [];
      for (var slot = begin; slot < end; slot++) {
        var code = top.mark.charCodeAt(slot) - 48;
        out.push([top.ids[top.doc[slot]], code >= 4 ? top.grade[gradeAt[slot]] : null, code % 4]);
      }
      return out;
    }

    function detailRow(index) {
      var tr = el("tr", { "class": "detail" });
      var td = el("td", { colspan: String(data.columns.length + 1) });
      var top = slots(index);
      if (!top.length) {
        td.appendChild(el("p", null, words.nothing));
      } else {
        var table = el("table");
        table.appendChild(el("caption", null, fill(words.top, { k: data.k, id: data.rows[index][0] })));
        var head = el("tr");
        // The mark and grade before the id: a long text never pushes them out of view.
        words.heads.forEach(function (h) { head.appendChild(el("th", { scope: "col" }, h)); });
        var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
        var tbody = el("tbody");
        var withText = data.with_texts && textRows[index];
        top.forEach(function (slot, rank) {
          var r = el("tr");
          r.appendChild(el("td", { "class": "num" }, rank + 1));
          var mark = data.marks[slot[2]];
          r.appendChild(el("td", { "class": "mark-" + mark.replace(/ /g, "-") }, mark));
          r.appendChild(el("td", { "class": "num" }, slot[1] === null ? "\u2013" : slot[1]));
          var idCell = el("td", { "class": "doc" });
          idCell.appendChild(el("span", { "class": "mono" }, slot[0]));
          if (withText) { idCell.appendChild(docText(slot[0])); }
          r.appendChild(idCell);
          tbody.appendChild(r);
        });
        table.appendChild(tbody);
        td.appendChild(table);
        if (data.with_texts && !withText) { td.appendChild(el("p", { "class": "text-note" }, data.text_note)); }
        if (withText && textProblem) { td.appendChild(el("p", { "class": "notice" }, textProblem)); }
      }
      tr.appendChild(td);
      return tr;
    }

    // A document's title and snippet under its id, its text on demand; text set as text, never HTML.
    function docText(id) {
      var found = textProblem ? null : textOf(id);
      var box = el("div", { "class": "doc-text" });
      if (!found) {
        box.appendChild(el("span", { "class": "text-missing" }, data.text_missing));
        return box;
      }
      if (found[0]) { box.appendChild(el("strong", { "class": "doc-title" }, found[0])); }
      box.appendChild(el("span", { "class": "snippet" }, found[1]));
      if (found[2] !== found[1]) {
        var more = el("details");
        more.appendChild(el("summary", null, data.full_text));
        more.appendChild(el("p", { "class": "full-text" }, found[2]));
        box.appendChild(more);
      }
      return box;
    }

    function render() {
      var order = state.order;
      var size = printing ? Math.max(order.length, 1) : pageSize;  // on paper: every row the filter keeps
      var pages = Math.max(1, Math.ceil(order.length / size));
      if (state.page >= pages) { state.page = pages - 1; }
      var start = printing ? 0 : state.page * size;
      var stop = Math.min(order.length, start + size);
      var fragment = document.createDocumentFragment();
      for (var i = start; i < stop; i++) {
        var index = order[i];
        var row = data.rows[index];
        var tr = el("tr");
        var cell = el("td");
        var open = !!state.open[index];
        var button = el("button", { type: "button", "class": "expand", "aria-expanded": open ? "true" : "false",
          "aria-label": fill(words.show, { k: data.k, id: row[0] }), "data-index": String(index) }, "\u25B6");
        cell.appendChild(button);
        tr.appendChild(cell);
        for (var c = 0; c < row.length; c++) {
          var kind = data.kinds[c];
          var attrs = c === 0 ? { scope: "row", "class": CELL_CLASS[kind] } : { "class": CELL_CLASS[kind] };
          var cellNode = el(c === 0 ? "th" : "td", attrs, c === 0 && queryHref ? null : formatCell(row[c], kind, data.statuses));
          if (c === 0 && queryHref) {  // the id opens the query's view: every run's list side by side
            cellNode.appendChild(el("a", { href: queryHref + encodeURIComponent(row[0]) }, row[0]));
          }
          tr.appendChild(cellNode);
        }
        fragment.appendChild(tr);
        if (textCol >= 0 && row[textCol]) {  // the text's own line, shown on a phone only (site.css)
          var line = el("td", { colspan: String(data.columns.length + 1) });
          line.appendChild(el("span", null, row[textCol]));
          fragment.appendChild(el("tr", { "class": "text-line" })).appendChild(line);
        }
        if (open) { fragment.appendChild(detailRow(index)); }
      }
      body.replaceChildren(fragment);
      where.textContent = order.length
        ? fill(words.rows, { start: (start + 1).toLocaleString("en"), stop: stop.toLocaleString("en"),
                             total: order.length.toLocaleString("en") }) +
          (order.length < data.rows.length ? fill(words.filtered, { all: data.rows.length.toLocaleString("en") }) : "")
        : words.none;
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
      cue();
    }

    function refresh() {
      state.order = filtered();
      state.page = 0;
      render();
    }

    headers.forEach(function (th) {
      th.querySelector("button").addEventListener("click", function () {
        var col = Number(th.getAttribute("data-col"));
        state.ascending = state.sortCol === col ? !state.ascending : true;
        state.sortCol = col;
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", state.ascending ? "ascending" : "descending");
        refresh();
      });
    });
    statusSelect.addEventListener("change", refresh);
    idInput.addEventListener("input", refresh);
    prev.addEventListener("click", function () { state.page -= 1; render(); });
    next.addEventListener("click", function () { state.page += 1; render(); });
    body.addEventListener("click", function (event) {
      var button = event.target.closest("button.expand");
      if (!button) { return; }
      var index = Number(button.getAttribute("data-index"));
      state.open[index] = !state.open[index];
      render();
    });
    window.addEventListener("beforeprint", function () { printing = true; render(); });
    window.addEventListener("afterprint", function () { printing = false; render(); });
    refresh();
    if (data.with_texts) {  // the text arrives unpacked after the table is drawn: open rows get it then
      readTexts().then(function (found) { textOf = found; render(); },
        function (error) { textProblem = error.message; render(); });
    }
  }

  // On paper every expander is open (its rows hold the verdicts and conventions); back on screen
  // the ones the reader had closed close again.
  function printExpanders() {
    var opened = [];
    window.addEventListener("beforeprint", function () {
      document.querySelectorAll("details:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
    });
    window.addEventListener("afterprint", function () {
      opened.forEach(function (d) { d.open = false; });
      opened = [];
    });
  }

  // The page's scripts are its last elements: when this one runs, every table above it is parsed, so
  // the tables are drawn at once; the charts wait for the document's end, when plotly.js (deferred,
  // with the documents' text) has run.
  function start() {
    printExpanders();
    document.querySelectorAll("[data-query-table]").forEach(function (root) { QueryTable(root); });
    document.querySelectorAll("[data-query-view]").forEach(function (root) { QueryView(root); });
    // A wide table that scrolls in its own box (the pairwise matrix): the same cue as the per-query table's.
    document.querySelectorAll("[data-scroll-cue]").forEach(function (box) {
      scrollCue(box, box.parentNode.querySelector(".scroll-cue"))();
    });
    parsed.then(drawCharts);
  }

  start();
})();

/* ragreport: draws the K-sweep charts and runs the per-query tables. Plain JavaScript, no network. */
(function () {
  "use strict";

  function readJSON(id) {
    return JSON.parse(document.getElementById(id).textContent);
  }

  // Whether an object parsed from the page's data holds ``key`` itself (not from its prototype:
  // "valueOf", "__proto__" and "constructor" are ids like any other).
  function own(object, key) { return object != null && Object.prototype.hasOwnProperty.call(object, key); }

  // A data block gzipped in base64 (the query view's), inflated by the browser: a promise of its JSON.
  function readPacked(id) {
    var block = document.getElementById(id);
    if (typeof DecompressionStream === "undefined" || typeof Response === "undefined") {
      return Promise.reject(new Error(block.getAttribute("data-unsupported")));
    }
    var binary = atob(block.textContent);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
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
    margin.t = base.top + (text.split("<br>").length - 1) * Math.round(size * 1.35);
    return true;
  }

  // Rows named on the axis (the forest plot) keep their names on a wide screen; on a narrow one each
  // name moves above its row, so the axis gets the whole width. Returns true when that changed.
  function fitRows(figure, width, ink) {
    var meta = figure.layout.meta;
    if (!meta || !meta.labelsAbove) { return false; }
    if (!figure.__rows) { figure.__rows = { height: figure.layout.height, narrow: false }; }
    var narrow = width < 560;
    if (narrow === figure.__rows.narrow) { return false; }
    figure.__rows.narrow = narrow;
    var names = figure.data[0].y;
    figure.layout.yaxis.showticklabels = !narrow;
    figure.layout.annotations = narrow ? names.map(function (name) {
      return { text: name, x: 0, xref: "paper", xanchor: "left", y: name, yref: "y", yshift: 16,
               showarrow: false, font: { size: 12, color: ink } };
    }) : [];
    figure.layout.height = figure.__rows.height + (narrow ? 12 * names.length : 0);
    return true;
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
      chartsMissing(holders, "The chart needs plotly.js, which did not load.");
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
      fitGrid(figure, holder.clientWidth || window.innerWidth);
      fitTitle(figure, holder.clientWidth || window.innerWidth);
      fitRows(figure, holder.clientWidth || window.innerWidth, ink);
      colourAxes(figure.layout, ink, grid);
      sizeHolder(holder, figure);
      window.Plotly.newPlot(holder, figure.data, figure.layout, figure.config);
      drawn.push({ holder: holder, figure: figure });
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
          var layout = item.figure.layout;
          sizeHolder(item.holder, item.figure);
          var update = { width: item.holder.clientWidth, height: layout.height };
          if (regrid) { update.grid = layout.grid; }
          if (retitle) { update["title.text"] = layout.title.text; update["margin.t"] = layout.margin.t; }
          if (rerow) { update.annotations = layout.annotations; update["yaxis.showticklabels"] = layout.yaxis.showticklabels; }
          window.Plotly.relayout(item.holder, update);
        });
      }, 60);
    });
  }

  // One query, every run: its text and judgments, each run's top K side by side with marks, grades,
  // text and the move against the baseline, and each run's figures. Opened by the address #q=ID.
  function QueryView(root) {
    readPacked(root.getAttribute("data-query-view")).then(function (data) { drawQueryView(root, data); },
      function (error) { root.appendChild(el("p", { "class": "notice" }, error.message)); });
  }

  function drawQueryView(root, data) {
    var words = data.words;
    var byId = new Map();  // not an object: an id such as __proto__ or valueOf is a key like any other
    data.queries.forEach(function (q, i) { if (!byId.has(q.id)) { byId.set(q.id, i); } });
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

    function figures(q) {
      var table = el("table", { "class": "query-figures" });
      var head = el("tr");
      head.appendChild(el("th", { scope: "col" }, words.metric));
      data.runs.forEach(function (run) { head.appendChild(el("th", { scope: "col", "class": "num" }, run)); });
      data.runs.forEach(function (run, r) {
        if (base >= 0 && r !== base) {
          head.appendChild(el("th", { scope: "col", "class": "num" }, run + " " + words.minus + " " + data.baseline));
        }
      });
      var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
      var tbody = el("tbody");
      data.metrics.forEach(function (metric, m) {
        var tr = el("tr");
        tr.appendChild(el("th", { scope: "row" }, metric));
        data.runs.forEach(function (run, r) {
          var values = q.values[r];
          tr.appendChild(el("td", { "class": "num" }, values ? fmt(values[m]) : words.not_scored));
        });
        data.runs.forEach(function (run, r) {
          if (base < 0 || r === base) { return; }
          var ours = q.values[r], theirs = q.values[base];
          var delta = ours && theirs ? ours[m] - theirs[m] : null;
          var css = delta === null ? "num" : "num " + (delta > 1e-9 ? "gain" : delta < -1e-9 ? "loss" : "");
          tr.appendChild(el("td", { "class": css }, delta === null ? words.not_scored : signed(delta)));
        });
        tbody.appendChild(tr);
      });
      table.appendChild(tbody);
      return table;
    }

    function list(q, r, grades, baseRank) {
      var column = el("div", { "class": "query-run" + (r === base ? " is-baseline" : "") });
      column.appendChild(el("h4", null, data.runs[r]));
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
        var text = q.with_text && own(data.texts, String(doc)) ? data.texts[String(doc)] : null;
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
      var q = data.queries[at];
      var title = el("h3", { "class": "query-title" });
      title.appendChild(el("span", { "class": "mono" }, q.id));
      if (q.text) { title.appendChild(el("span", { "class": "query-text" }, " " + q.text)); }
      body.appendChild(title);
      body.appendChild(el("p", { "class": "muted" }, q.relevant + " " + (q.relevant === 1 ? words.relevant_one : words.relevant_count) + ". " +
        (base >= 0 ? words.moved : "")));
      var box = el("div", { "class": "scroll" });  // many runs: the figures scroll, the page does not
      box.appendChild(figures(q));
      body.appendChild(box);
      var grades = {};
      q.judged.forEach(function (pair) { grades[pair[0]] = pair[1]; });
      var baseRank = null;
      if (base >= 0 && q.tops[base]) {
        baseRank = {};
        q.tops[base].forEach(function (doc, rank) { if (baseRank[doc] === undefined) { baseRank[doc] = rank; } });
      }
      var grid = el("div", { "class": "query-runs" });
      var order = base >= 0 ? [base].concat(data.runs.map(function (_, r) { return r; }).filter(function (r) { return r !== base; }))
                            : data.runs.map(function (_, r) { return r; });
      order.forEach(function (r) { grid.appendChild(list(q, r, grades, baseRank)); });
      body.appendChild(grid);
      if (!q.with_text && Object.keys(data.texts).length) { body.appendChild(el("p", { "class": "text-note" }, words.no_text)); }
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
    var printing = false;
    var statusCol = data.kinds.indexOf("status");
    var textCol = data.kinds.indexOf("text");
    var state = { sortCol: -1, ascending: true, page: 0, order: [], open: {} };
    var textRows = {};
    (data.text_rows || []).forEach(function (row) { textRows[row] = true; });

    function sortValue(index, col) {
      var value = data.rows[index][col];
      return col === statusCol ? data.statuses[value] : value;
    }

    function compare(a, b) {
      var x = sortValue(a, state.sortCol), y = sortValue(b, state.sortCol);
      var xMissing = x === null || x === undefined, yMissing = y === null || y === undefined;
      if (xMissing || yMissing) { return xMissing === yMissing ? a - b : (xMissing ? 1 : -1); }  // blanks last
      if (x === y) { return a - b; }
      return (x < y ? -1 : 1) * (state.ascending ? 1 : -1);
    }

    function filtered() {
      var status = statusSelect.value;
      var needle = idInput.value.trim().toLowerCase();
      var out = [];
      for (var i = 0; i < data.rows.length; i++) {
        var row = data.rows[i];
        if (status !== "" && String(row[statusCol]) !== status) { continue; }
        if (needle && String(row[0]).toLowerCase().indexOf(needle) < 0 &&
            (textCol < 0 || row[textCol] === null || String(row[textCol]).toLowerCase().indexOf(needle) < 0)) {
          continue;
        }
        out.push(i);
      }
      if (state.sortCol >= 0) { out.sort(compare); }
      return out;
    }

    function detailRow(index) {
      var tr = el("tr", { "class": "detail" });
      var td = el("td", { colspan: String(data.columns.length + 1) });
      var top = data.top[index];
      if (!top.length) {
        td.appendChild(el("p", null, "Nothing was retrieved for this query."));
      } else {
        var table = el("table");
        table.appendChild(el("caption", null, "Top " + data.k + " of " + data.rows[index][0]));
        var head = el("tr");
        // The mark and grade before the id: a long text never pushes them out of view.
        ["rank", "mark", "grade", "id"].forEach(function (h) { head.appendChild(el("th", { scope: "col" }, h)); });
        var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
        var tbody = el("tbody");
        var withText = data.texts && textRows[index];
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
        if (data.texts && !withText) { td.appendChild(el("p", { "class": "text-note" }, data.text_note)); }
      }
      tr.appendChild(td);
      return tr;
    }

    // A document's title and snippet under its id, its text on demand; text set as text, never HTML.
    function docText(id) {
      var found = own(data.texts, id) ? data.texts[id] : null;  // a prototype name is no document
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
          "aria-label": "Show the top " + data.k + " of " + row[0], "data-index": String(index) }, "\u25B6");
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
        if (open) { fragment.appendChild(detailRow(index)); }
      }
      body.replaceChildren(fragment);
      where.textContent = order.length
        ? "Rows " + (start + 1).toLocaleString("en") + "\u2013" + stop.toLocaleString("en") + " of " +
          order.length.toLocaleString("en") + (order.length < data.rows.length ? " (filtered from " +
          data.rows.length.toLocaleString("en") + ")" : "")
        : "No query matches.";
      prev.disabled = state.page === 0;
      next.disabled = state.page >= pages - 1;
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

  function start() {
    printExpanders();
    drawCharts();
    document.querySelectorAll("[data-query-table]").forEach(function (root) { QueryTable(root); });
    document.querySelectorAll("[data-query-view]").forEach(function (root) { QueryView(root); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

/* ragreport: unpacks the single file's gzipped plotly.js and runs it, with no network and no eval. */
(function () {
  var block = document.getElementById("plotly-packed");
  window.ragreportPlotly = new Promise(function (resolve, reject) {
    if (typeof DecompressionStream === "undefined" || typeof Response === "undefined") {
      reject(new Error(block.getAttribute("data-unsupported")));
      return;
    }
    var binary = atob(block.textContent);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    new Response(stream).text().then(function (source) {
      // An inline script runs as it is inserted; the page's policy admits it by its hash.
      var script = document.createElement("script");
      script.textContent = source;
      document.head.appendChild(script);
      if (typeof window.Plotly === "undefined") {
        reject(new Error(block.getAttribute("data-failed")));
      } else {
        resolve(window.Plotly);
      }
    }, function () { reject(new Error(block.getAttribute("data-failed"))); });
  });
  // The page's script handles a failure when it draws (it may subscribe later): marked handled here,
  // so an early rejection is not reported as an unhandled error before then.
  window.ragreportPlotly.catch(function () {});
})();

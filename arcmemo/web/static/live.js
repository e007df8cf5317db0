// Live progress of a running run: re-read its progress fragment every 2 s until it stops.
(function () {
  function poll() {
    var box = document.getElementById("progress");
    if (!box || !box.dataset.poll) return;
    fetch(box.dataset.poll, { cache: "no-store" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("progress");
        if (fresh) box.replaceWith(fresh);
        if (fresh && fresh.dataset.poll) setTimeout(poll, 2000);
        else if (fresh && fresh.dataset.state !== "running") location.reload();
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();

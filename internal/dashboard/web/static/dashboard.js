// The dashboard works without this script; it only adds copy buttons'
// behaviour: a button with data-copy="<id>" copies that field's value.
document.addEventListener("click", function (ev) {
  var b = ev.target.closest("button[data-copy]");
  if (!b) return;
  var field = document.getElementById(b.getAttribute("data-copy"));
  if (!field) return;
  var text = field.value !== undefined ? field.value : field.textContent;
  // The label changes with the text, so the accessible name stays the
  // visible one.
  var label = b.getAttribute("aria-label");
  var done = function () {
    b.textContent = "Copied";
    if (label) b.setAttribute("aria-label", "Copied");
    setTimeout(function () {
      b.textContent = "Copy";
      if (label) b.setAttribute("aria-label", label);
    }, 2000);
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, function () { field.select && field.select(); });
  } else if (field.select) {
    field.select();
    document.execCommand("copy");
    done();
  }
});

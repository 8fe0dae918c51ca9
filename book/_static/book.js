/* The book's page behaviour (docs/html.md).
 *
 * Highlighted source pages: a listing's caption links to
 * _source/<path>.html?lines=12-30#L-12; the lines of that range (span#L-n)
 * and their numbers are marked, so the reader sees where the listing sits in
 * the file.
 */
(() => {
  "use strict";

  const highlightRange = () => {
    const range = new URLSearchParams(window.location.search).get("lines");
    const match = range && range.match(/^(\d+)-(\d+)$/);
    if (!match) return;
    const first = Number(match[1]);
    const last = Math.min(Number(match[2]), first + 5000);
    for (let line = first; line <= last; line += 1) {
      const code = document.getElementById(`L-${line}`);
      if (code) code.classList.add("llm-highlighted");
      const number = document.querySelector(`pre.llm-linenos a[href="#L-${line}"]`);
      if (number) number.classList.add("llm-highlighted");
    }
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", highlightRange);
  } else {
    highlightRange();
  }
})();

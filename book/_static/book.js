/* The book's page behaviour (docs/html.md).
 *
 * - Source pages: a listing's caption links to _source/<path>.html?lines=12-30#L-12;
 *   the lines of that range (span#L-n) and their numbers are marked.
 * - Nothing cut: every box that scrolls sideways (a table, a listing, demo
 *   output, a formula, a figure) is wrapped in a frame whose data-llm-more
 *   says on which side more is hidden; book.css draws a shadow there. An
 *   inline formula wider than its line gets a scroll box of its own.
 * - Keyboard: the left and right arrow keys open the previous and next page,
 *   unless the reader is typing, holds a modifier, or the focused box can
 *   scroll that way.
 * - Answers: following a link to an answer opens it; printing opens them all.
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

  // --- Scroll boxes and their cue -------------------------------------------------
  const SCROLLERS = [
    "article .table-wrapper", "article div.highlight pre", "article div.math",
    "article .math-wrapper", "article div.graphviz", "article div.llm-figure-scroll",
  ].join(", ");

  const updateCue = (scroller) => {
    const frame = scroller.parentElement;
    if (!frame || !frame.classList.contains("llm-scroll-frame")) return;
    const hidden = scroller.scrollWidth - scroller.clientWidth;
    const more = [];
    if (hidden > 1 && scroller.scrollLeft > 1) more.push("left");
    if (hidden > 1 && scroller.scrollLeft < hidden - 1) more.push("right");
    frame.dataset.llmMore = more.join(" ");
    scroller.tabIndex = hidden > 1 ? 0 : -1;  // a keyboard user can scroll it
  };

  const frameScroller = (scroller) => {
    if (scroller.parentElement && scroller.parentElement.classList.contains("llm-scroll-frame")) return;
    // A math wrapper holding a div.math: the inner box is the one to frame.
    if (scroller.matches(".math-wrapper") && scroller.querySelector("div.math")) return;
    const frame = document.createElement("div");
    frame.className = "llm-scroll-frame";
    scroller.parentNode.insertBefore(frame, scroller);
    frame.appendChild(scroller);
    scroller.addEventListener("scroll", () => updateCue(scroller), { passive: true });
  };

  /** Inline formulas wider than their line scroll in a box of their own. */
  const markWideMath = () => {
    document.querySelectorAll("article span.math").forEach((math) => {
      const block = math.closest("p, li, dd, td, th") || math.parentElement;
      if (!block || math.closest("table")) return;
      const wide = math.getBoundingClientRect().width > block.getBoundingClientRect().width + 1;
      if (wide && !math.classList.contains("llm-wide-math")) {
        math.classList.add("llm-wide-math");
        frameScroller(math);
      }
    });
  };

  const refreshScrollBoxes = () => {
    markWideMath();
    document.querySelectorAll(SCROLLERS).forEach(frameScroller);
    document.querySelectorAll(".llm-scroll-frame > *").forEach(updateCue);
  };

  // --- Keyboard: previous and next page --------------------------------------------
  const canScroll = (element, direction) => {
    for (let node = element; node && node !== document.body; node = node.parentElement) {
      if (node.scrollWidth > node.clientWidth + 1 && /(auto|scroll)/.test(getComputedStyle(node).overflowX)) {
        if (direction < 0 ? node.scrollLeft > 0 : node.scrollLeft < node.scrollWidth - node.clientWidth - 1) return true;
      }
    }
    return false;
  };

  const onKey = (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const active = document.activeElement;
    if (active && (active.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName))) return;
    const direction = event.key === "ArrowLeft" ? -1 : 1;
    if (canScroll(active, direction)) return;
    const link = document.querySelector(direction < 0 ? 'link[rel="prev"]' : 'link[rel="next"]');
    if (link && link.href) {
      event.preventDefault();
      window.location.href = link.href;
    }
  };

  // --- Answers -------------------------------------------------------------------
  const openTarget = () => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    const details = target && (target.closest("details") || target.querySelector("details"));
    if (details) {
      details.open = true;
      target.scrollIntoView();
    }
  };
  const openAll = () => document.querySelectorAll("details").forEach((details) => { details.open = true; });

  // For make check-html: look at the scroll boxes again after a resize it made.
  window.LLM_BOOK = { refreshScrollBoxes };

  const start = () => {
    highlightRange();
    if (document.querySelector(".llm-print-book")) openAll();
    refreshScrollBoxes();
    openTarget();
    window.addEventListener("hashchange", openTarget);
    window.addEventListener("beforeprint", openAll);
    document.addEventListener("keydown", onKey);
    if (window.ResizeObserver) {
      const observer = new ResizeObserver(() => document.querySelectorAll(".llm-scroll-frame > *").forEach(updateCue));
      observer.observe(document.querySelector("article") || document.body);
    }
    window.addEventListener("resize", refreshScrollBoxes);
  };

  // Formulas change widths when MathJax typesets them: look again afterwards.
  window.addEventListener("load", () => {
    if (window.MathJax && window.MathJax.Hub) window.MathJax.Hub.Queue(refreshScrollBoxes);
    else refreshScrollBoxes();
  });

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

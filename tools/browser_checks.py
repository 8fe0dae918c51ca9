"""The JavaScript that tools/check_html.py runs inside each page (Selenium's
``execute_script`` and ``execute_async_script``). Each probe returns what it
found wrong, in words a reader of the failure understands."""

from __future__ import annotations

#: Shared helpers: colour luminance and the text rectangles of a code block's first line.
_HELPERS = r"""
// WCAG relative luminance of a CSS colour (null when fully transparent).
const luminance = (colour) => {
  const parts = (colour.match(/[\d.]+/g) || ["255", "255", "255"]).map(Number);
  if (parts.length > 3 && parts[3] === 0) return null;
  const linear = parts.slice(0, 3).map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
};
const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
const background = (element) => {
  for (let node = element; node; node = node.parentElement) {
    const value = luminance(getComputedStyle(node).backgroundColor);
    if (value !== null) return value;
  }
  return 1;
};
const firstLineRects = (pre) => {
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  let started = false;
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent;
    if (!started) {
      const offset = text.search(/\S/);
      if (offset < 0) continue;
      range.setStart(node, offset);
      started = true;
    }
    const end = text.indexOf("\n", started && range.startContainer === node ? range.startOffset : 0);
    if (end >= 0) { range.setEnd(node, end); return [...range.getClientRects()]; }
    range.setEnd(node, text.length);
  }
  return started ? [...range.getClientRects()] : [];
};
// How many lines the direct content of ``element`` occupies: boxes that do not
// overlap vertically with the first box start a new line.
const lineCount = (element) => {
  const boxes = [];
  element.childNodes.forEach((child) => {
    if (child.nodeType === Node.TEXT_NODE) {
      if (!child.textContent.trim()) return;
      const range = document.createRange();
      range.selectNodeContents(child);
      boxes.push(...range.getClientRects());
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      const box = child.getBoundingClientRect();
      if (box.width > 0 && box.height > 0) boxes.push(box);
    }
  });
  const lines = [];
  boxes.forEach((box) => {
    if (!lines.some((line) => box.top < line.bottom - 1 && box.bottom > line.top + 1)) lines.push(box);
  });
  return lines.length;
};
const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
"""

#: execute_script(PAGE_PROBE, laptopHeight, narrow): layout, math and answers of one page.
PAGE_PROBE = _HELPERS + r"""
const laptopHeight = arguments[0];
const narrow = Boolean(arguments[1]);
const found = {"math": [], "symbol tables": [], "answers": [], "copy button": [], "figures": [], "listings": [],
               "phone tables": []};
const article = document.querySelector("article") || document.body;

// Math: every .math element typeset by MathJax, no error, no TeX left in the text.
article.querySelectorAll(".math").forEach((element) => {
  if (!element.querySelector(".MathJax_CHTML, .mjx-chtml")) {
    found.math.push(`formula not typeset: ${element.textContent.trim().slice(0, 60)}`);
  }
});
article.querySelectorAll(".mjx-merror, .MathJax_Error, .merror").forEach((element) => {
  found.math.push(`MathJax error: ${element.textContent.trim().slice(0, 80)}`);
});
if (window.MathJax && MathJax.Hub && ((MathJax.Hub.config.CommonHTML || {}).linebreaks || {}).automatic) {
  found.math.push("MathJax automatic line breaking is on: it breaks symbols in table cells");
}
const skip = "pre, code, script, style, textarea, .math, .MathJax_Preview, .MJX_Assistive_MathML, .MathJax_CHTML";
const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
  acceptNode: (node) => node.parentElement.closest(skip) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
});
while (walker.nextNode()) {
  const text = walker.currentNode.textContent;
  const raw = text.match(/\$[^$\s][^$]*\$|\\\(|\\\)|\\\[|\\\]|\\(frac|mathrm|operatorname|bar|hat)\b/);
  if (raw) found.math.push(`raw TeX in the text: "${text.trim().slice(0, 80)}"`);
}

// Tables: the meaning column of a symbol table is the wider; no number or formula wraps.
article.querySelectorAll("table.symbol-table").forEach((table, index) => {
  const row = table.querySelector("thead tr") || table.rows[0];
  const symbol = row.cells[0].getBoundingClientRect().width;
  const meaning = row.cells[row.cells.length - 1].getBoundingClientRect().width;
  if (!narrow && meaning <= symbol) {
    found["symbol tables"].push(`symbol table ${index + 1}: meaning column ${meaning.toFixed(0)} px is not wider than the symbol column ${symbol.toFixed(0)} px`);
  }
  const head = table.querySelector("thead");
  if (head && !(head.getBoundingClientRect().height > 0 && getComputedStyle(head).visibility !== "hidden")) {
    found["symbol tables"].push(`symbol table ${index + 1}: its header row ("${[...head.querySelectorAll("th")].map((cell) => cell.textContent.trim()).join(" | ").slice(0, 60)}") is hidden`);
  }
  table.querySelectorAll("tbody tr").forEach((tableRow) => {
    const cell = tableRow.cells[0];
    if (lineCount(cell.querySelector("p") || cell) > 1) {
      found["symbol tables"].push(`symbol table ${index + 1}: the symbol cell "${cell.innerText.trim().slice(0, 30)}" wraps onto several lines`);
    }
  });
});
article.querySelectorAll("table .llm-nowrap, table .MathJax_CHTML").forEach((element) => {
  if (element.getClientRects().length > 1) {
    found["symbol tables"].push(`"${element.textContent.trim().slice(0, 30)}" wraps across lines in a table`);
  }
});

// Listings: on a laptop every line of a source listing is in view (clang-format
// allows 100 columns; book.css sizes the column and the code for them), so the
// listing never scrolls there; on a phone it scrolls inside its own box.
if (!narrow) {
  article.querySelectorAll(".llm-listing div.highlight pre").forEach((pre) => {
    const hidden = pre.scrollWidth - pre.clientWidth;
    if (hidden <= 1) return;
    const listing = pre.closest(".llm-listing");
    const caption = listing.querySelector(".llm-listing-caption");
    const columns = Math.max(...pre.textContent.split("\n").map((line) => line.length));
    found.listings.push(`listing${listing.id ? ` #${listing.id}` : ""} "${caption ? caption.textContent.trim().slice(0, 60) : ""}": `
      + `its longest line (${columns} columns) needs ${pre.scrollWidth} px, the box shows ${pre.clientWidth} px, so ${hidden} px scroll out of view`);
  });
}

// Tables laid out for a phone (tools/figures.py table(fits_phone=True)): on a
// phone such a table fits its column; it does not scroll in its wrapper.
if (narrow) {
  article.querySelectorAll("table.llm-fits-phone").forEach((table) => {
    const box = table.closest(".table-wrapper") || table;
    const hidden = box.scrollWidth - box.clientWidth;
    if (hidden <= 1) return;
    const caption = table.querySelector("caption");
    found["phone tables"].push(`"${caption ? caption.textContent.trim().replace(/\s+/g, " ").slice(0, 60) : ""}" `
      + `is laid out to fit a phone but needs ${box.scrollWidth} px of ${box.clientWidth} px: ${hidden} px scroll out of view`);
  });
}

// Answers: collapsed at load, open on click.
article.querySelectorAll("details.answer").forEach((details, index) => {
  if (details.open) { found.answers.push(`answer ${index + 1} is open at load`); return; }
  const summary = details.querySelector("summary");
  if (!summary) { found.answers.push(`answer ${index + 1} has no summary to click`); return; }
  summary.click();
  if (!details.open) found.answers.push(`answer ${index + 1} does not open when clicked`);
  summary.click();
});

// Copy buttons: never over the first line of code.
article.querySelectorAll("div.highlight").forEach((block, index) => {
  const button = block.querySelector("button.copybtn");
  const pre = block.querySelector("pre");
  if (!button || !pre) return;
  const box = button.getBoundingClientRect();
  if (firstLineRects(pre).some((rect) => rect.width > 0 && overlaps(rect, box))) {
    found["copy button"].push(`code block ${index + 1}: the copy button covers the first line "${pre.textContent.trim().split("\n")[0].slice(0, 40)}"`);
  }
});

// Figures: a full-size link, alt text, and (on a laptop) no taller than the screen.
article.querySelectorAll("figure, div.figure").forEach((figure, index) => {
  const image = figure.querySelector("img, object.graphviz");
  if (!image) return;
  if (!figure.querySelector("a.llm-full-size")) found.figures.push(`figure ${index + 1} has no link to open it full size`);
  const alt = image.tagName === "IMG" ? image.alt : image.getAttribute("aria-label");
  if (!alt || /\.svg$/.test(alt)) found.figures.push(`figure ${index + 1} has no alt text`);
  const height = image.getBoundingClientRect().height;
  // A figure may be taller than the screen only where its labels need the height (data-llm-tall).
  if (!narrow && height > laptopHeight - 60 && !image.hasAttribute("data-llm-tall")) {
    found.figures.push(`figure ${index + 1} is ${height.toFixed(0)} px tall: taller than a ${laptopHeight} px laptop screen`);
  }
});
return found;
"""

#: execute_async_script(COPY_PROBE): clicks the first copy button; returns the copied text
#: and the line numbers shown beside that code.
COPY_PROBE = r"""
const done = arguments[arguments.length - 1];
const button = document.querySelector("article div.highlight button.copybtn");
if (!button) { done({error: "no copy button on the page"}); return; }
let copied = null;
const execCommand = document.execCommand.bind(document);
document.execCommand = (command, ...rest) => {
  if (command !== "copy") return execCommand(command, ...rest);
  const active = document.activeElement;
  copied = active && "value" in active ? active.value.substring(active.selectionStart, active.selectionEnd)
                                       : String(window.getSelection());
  return true;
};
if (navigator.clipboard) navigator.clipboard.writeText = async (text) => { copied = text; };
button.click();
setTimeout(() => {
  document.execCommand = execCommand;
  const body = button.closest(".llm-listing-body");
  const numbers = body ? [...body.querySelectorAll("pre.llm-linenos a")].map((a) => a.textContent) : [];
  done(copied === null ? {error: "the copy button copied nothing"} : {copied, numbers});
}, 400);
"""

#: execute_async_script(THEME_PROBE): the theme toggle, dark mode's readability,
#: back-to-top and the "on this page" highlight.
THEME_PROBE = _HELPERS + r"""
const done = arguments[arguments.length - 1];
const problems = [];
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const readable = (label) => {
  // [what, element, its background must be dark, the least text contrast (WCAG)]
  const checks = [
    ["page", document.body, true, 4.5],
    ["body text", document.querySelector("article p"), true, 4.5],
    ["code", document.querySelector("article div.highlight pre"), true, 4.5],
    ["listing line numbers", document.querySelector("pre.llm-linenos"), true, 3],
    ["table header", document.querySelector("article table.docutils th"), true, 4.5],
    ["table cell", document.querySelector("article table.docutils td"), true, 4.5],
    ["answer", document.querySelector("details.answer"), true, 4.5],
  ];
  for (const [name, element, dark, least] of checks) {
    if (!element) continue;
    const back = background(element);
    if (dark && back > 0.1) problems.push(`${label}: the ${name} background is light (luminance ${back.toFixed(2)})`);
    const text = luminance(getComputedStyle(element).color);
    if (text !== null && contrast(text, back) < least) problems.push(`${label}: the ${name} text contrast is ${contrast(text, back).toFixed(1)}:1, below ${least}:1`);
  }
  document.querySelectorAll("article figure img, article object.graphviz").forEach((image, index) => {
    if (!/invert/.test(getComputedStyle(image).filter)) problems.push(`${label}: figure ${index + 1} stays white`);
  });
};
(async () => {
  const systemDark = window.matchMedia("(prefers-color-scheme: dark)").matches;
  if (systemDark) readable("auto mode on a dark system");
  const toggle = [...document.querySelectorAll(".theme-toggle")].find((button) => button.offsetParent !== null);
  if (!toggle) { done(["no visible theme toggle"]); return; }
  const seen = {};
  for (let i = 0; i < 3; i += 1) {
    toggle.click();
    await pause(50);
    seen[document.body.dataset.theme] = getComputedStyle(document.body).backgroundColor;
  }
  if (!("dark" in seen) || !("light" in seen)) problems.push(`the toggle cycles through ${Object.keys(seen).join(", ")}, not light and dark`);
  else if (seen.dark === seen.light) problems.push(`the toggle does not change the page background (${seen.dark})`);
  for (let i = 0; i < 3 && document.body.dataset.theme !== "dark"; i += 1) { toggle.click(); await pause(50); }
  if (document.body.dataset.theme === "dark") readable("dark mode from the toggle");
  // Back-to-top appears when scrolling up; the contents sidebar marks the current section.
  window.scrollTo(0, Math.min(4000, document.documentElement.scrollHeight / 2));
  await pause(400);
  for (let i = 0; i < 3 && !document.documentElement.classList.contains("show-back-to-top"); i += 1) {
    window.scrollBy(0, -150);
    await pause(300);
  }
  if (!document.documentElement.classList.contains("show-back-to-top")) problems.push("back-to-top does not appear when scrolling up");
  if (document.querySelector(".toc-tree a") && !document.querySelector(".toc-tree .scroll-current")) {
    problems.push("the 'on this page' contents do not mark the current section");
  }
  window.scrollTo(0, 0);
  done(problems);
})();
"""

#: execute_async_script(SEARCH_PROBE): waits for results and their snippets, then inspects them.
SEARCH_PROBE = r"""
const done = arguments[arguments.length - 1];
const started = Date.now();
const inspect = () => {
  const items = [...document.querySelectorAll("#search-results ul.search li")];
  const finished = /finished|found/i.test((document.querySelector("#search-results p.search-summary, #search-results p") || {}).textContent || "");
  const pending = items.filter((item) => !item.querySelector("span, p.context")).length;
  if ((!finished || pending) && Date.now() - started < 15000) { setTimeout(inspect, 200); return; }
  const problems = [];
  if (!items.length) problems.push("no results");
  const links = items.map((item) => item.querySelector("a").href);
  const duplicates = links.filter((link, index) => links.indexOf(link) !== index);
  if (duplicates.length) problems.push(`duplicate results: ${[...new Set(duplicates)].slice(0, 3).join(", ")}`);
  items.forEach((item) => {
    const title = item.querySelector("a").textContent;
    const description = item.querySelector("span");
    if (description && /parameter/.test(description.textContent)) problems.push(`a parameter is a result: ${title} ${description.textContent}`);
    const snippet = item.querySelector("p.context");
    if (!description && (!snippet || snippet.textContent.trim().length < 20)) problems.push(`no snippet for ${title}`);
    if (!snippet) return;
    const text = snippet.textContent;
    if (/\\[a-zA-Z]+|\$/.test(text)) problems.push(`raw TeX in the snippet of ${title}: ${text.slice(0, 80)}`);
    // Line numbers leak into a snippet as a run of consecutive integers with
    // nothing but white space between them ("12 13 14 15"); prose that names
    // chapters 9, 10, 11 and 12 has words or punctuation between its numbers.
    const runs = text.match(/\b\d+(?:\s+\d+){3,}\b/g) || [];
    for (const run of runs) {
      const numbers = run.split(/\s+/).map(Number);
      if (numbers.some((value, i) => i + 3 < numbers.length && numbers[i + 1] === value + 1 && numbers[i + 2] === value + 2 && numbers[i + 3] === value + 3)) {
        problems.push(`line numbers in the snippet of ${title}: ${text.slice(0, 80)}`);
        break;
      }
    }
  });
  done(problems);
};
inspect();
"""

#: execute_script(OVERFLOW_PROBE): content cut at the current width. Walks the
#: article from the outside in: an element wider than its column with no scroll
#: box of its own is cut; an element that clips its overflow (hidden) cuts its
#: content; a scroll box that hides content must show the cue book.js draws
#: (its frame's data-llm-more). Returns the problems found, outermost first.
OVERFLOW_PROBE = r"""
if (window.LLM_BOOK) window.LLM_BOOK.refreshScrollBoxes();
const article = document.querySelector("article") || document.body;
const problems = [];
const page = document.documentElement;
if (page.scrollWidth > page.clientWidth + 1) {
  problems.push(`the page scrolls sideways: ${page.scrollWidth} px wide in a ${page.clientWidth} px window`);
}
const column = article.getBoundingClientRect();
const right = Math.min(column.right, page.clientWidth);
const left = Math.max(column.left, 0);
const skip = ".MJX_Assistive_MathML, .MathJax_Preview, .visually-hidden, script, style, a.headerlink, button.copybtn, .llm-skip-link";
const describe = (element) => {
  const named = element.closest("[id]");
  const classes = typeof element.className === "string" && element.className.trim() ? "." + element.className.trim().split(/\s+/).slice(0, 2).join(".") : "";
  const text = (element.textContent || "").trim().replace(/\s+/g, " ").slice(0, 40);
  return `<${element.tagName.toLowerCase()}${classes}>${named ? ` in #${named.id}` : ""} "${text}"`;
};
const beyond = (rect) => rect.width > 0 && rect.height > 0 && (rect.right > right + 1 || rect.left < left - 1);
const REPLACED = /^(IMG|OBJECT|SVG|CANVAS|VIDEO|IFRAME)$/i;
// Whether text or an image of the subtree (outside nested scroll boxes) reaches past the column:
// a box may reach past it (a heading's hover margin) while everything in it is visible.
const contentBeyond = (element) => {
  for (const node of element.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if ([...range.getClientRects()].some(beyond)) return true;
    } else if (node.nodeType === Node.ELEMENT_NODE && !node.matches(skip)) {
      const style = getComputedStyle(node);
      if (style.display === "none" || style.visibility === "hidden") continue;
      if (REPLACED.test(node.tagName) || /(auto|scroll|hidden|clip)/.test(style.overflowX)) {
        if (beyond(node.getBoundingClientRect())) return true;
        continue;
      }
      if (contentBeyond(node)) return true;
    }
  }
  return false;
};
const visit = (element) => {
  if (element.matches(skip)) return;
  const style = getComputedStyle(element);
  if (style.display === "none" || style.visibility === "hidden" || style.position === "fixed") return;
  const rect = element.getBoundingClientRect();
  const scroller = /(auto|scroll)/.test(style.overflowX) && element !== article;
  if (beyond(rect) && (REPLACED.test(element.tagName) || scroller || contentBeyond(element))) {
    problems.push(`cut: ${describe(element)} spans ${rect.left.toFixed(0)} to ${rect.right.toFixed(0)} px, past the column (${left.toFixed(0)} to ${right.toFixed(0)} px), with no scroll box of its own`);
    return;
  }
  const hidden = element.scrollWidth - element.clientWidth;
  if (scroller) {
    const frame = element.parentElement;
    const cue = frame && frame.classList.contains("llm-scroll-frame") && /left|right/.test(frame.dataset.llmMore || "");
    if (hidden > 1 && !cue) problems.push(`no cue: ${describe(element)} scrolls ${hidden} px sideways without the shadow that shows more is hidden`);
    return;
  }
  if (/(hidden|clip)/.test(style.overflowX) && hidden > 1 && element.clientWidth > 0) {
    problems.push(`clipped: ${describe(element)} hides ${hidden} px (overflow ${style.overflowX})`);
    return;
  }
  for (const child of element.children) visit(child);
};
for (const child of article.children) visit(child);
return problems;
"""

#: execute_script(FIGURE_PROBE): [file URL, rendered width, figure number] of every figure's image.
FIGURE_PROBE = r"""
return [...document.querySelectorAll("article figure img, article object.graphviz")]
  .filter((image) => image.getBoundingClientRect().width > 0)
  .map((image, index) => [image.tagName === "IMG" ? image.src : image.data, image.getBoundingClientRect().width, index + 1]);
"""

#: execute_async_script(NAVIGATION_PROBE, width): the skip link, anchors below the
#: sticky header, the page contents at 1280 px, exercise and answer links.
NAVIGATION_PROBE = r"""
const width = arguments[0];
const done = arguments[arguments.length - 1];
const problems = [];
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
(async () => {
  const first = [...document.querySelectorAll("a[href], button, input, [tabindex]")]
    .find((element) => element.tabIndex >= 0 && !element.closest("[aria-hidden=true]"));
  if (!first || !first.matches("a.llm-skip-link")) problems.push(`the first tab stop is ${first ? first.outerHTML.slice(0, 60) : "nothing"}, not the skip link`);
  else {
    const target = document.querySelector(first.getAttribute("href"));
    if (!target || !target.closest("article")) problems.push("the skip link does not lead into the article");
  }
  if (width >= 1280) {
    const contents = document.querySelector(".toc-drawer");
    const box = contents && contents.getBoundingClientRect();
    if (document.querySelector(".toc-tree a") && !(box && box.width > 100 && box.left < window.innerWidth && box.right <= window.innerWidth + 1)) {
      problems.push("'On this page' is not visible");
    }
  }
  // Anchor jumps: the target's top must be below the sticky header, if any.
  const header = document.querySelector(".mobile-header");
  const headerBottom = header && getComputedStyle(header).display !== "none" ? header.getBoundingClientRect().bottom : 0;
  const targets = [...document.querySelectorAll("article section[id] > h2, article section[id]")].slice(2, 4);
  for (const target of targets) {
    const section = target.closest("section[id]");
    window.location.hash = section.id;
    await pause(150);
    const top = (section.querySelector("h2, h3") || section).getBoundingClientRect().top;
    if (top < headerBottom - 1) problems.push(`#${section.id} lands at ${top.toFixed(0)} px, under the header that ends at ${headerBottom.toFixed(0)} px`);
  }
  // An exercise links to its answer, which opens; the answer links back.
  const toAnswer = document.querySelector("a.llm-to-answer");
  const answers = document.querySelectorAll("details.answer").length;
  if (answers && !toAnswer) problems.push("no exercise links to its answer");
  if (toAnswer) {
    toAnswer.click();
    await pause(150);
    const answer = document.getElementById(decodeURIComponent(toAnswer.hash.slice(1)));
    if (!answer || !answer.open) problems.push(`following ${toAnswer.getAttribute("href")} does not open the answer`);
    else if (!answer.querySelector("a.llm-to-exercise")) problems.push("the answer does not link back to its exercise");
    if (answer) answer.open = false;
  }
  history.replaceState(null, "", window.location.pathname);
  done(problems);
})();
"""

#: execute_async_script(LANDING_PROBE, phrase): after a search, what the results say about
#: where they land: [title, href, page text holds the phrase] of each result.
LANDING_PROBE = r"""
const done = arguments[arguments.length - 1];
const phrase = arguments[0].toLowerCase();
const started = Date.now();
const inspect = () => {
  const items = [...document.querySelectorAll("#search-results ul.search li")];
  const finished = /finished|found|did not match/i.test((document.querySelector("#search-results p.search-summary") || {}).textContent || "");
  if (!finished && Date.now() - started < 15000) { setTimeout(inspect, 20); return; }
  const texts = window.LLM_SEARCH_TEXT || {};
  // From the start of the page's navigation: loading the index and the text, and the search.
  const seconds = performance.now() / 1000;
  const pattern = new RegExp(phrase.split(/[\s-]+/).join("[\\s\\-]?"), "i");
  done({seconds, results: items.map((item) => {
    const link = item.querySelector("a");
    const page = decodeURIComponent(link.getAttribute("href").split("#")[0].replace(/\.html$/, ""));
    const sections = texts[page] || [];
    return [link.textContent, link.getAttribute("href"), pattern.test(sections.map((s) => s[1] + " " + s[2]).join(" "))];
  })});
};
inspect();
"""

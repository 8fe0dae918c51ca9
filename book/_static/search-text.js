/* Search that works from disk and lands where it should (book/_ext/llm_html.py).
 *
 * Loaded on the search page only, after Sphinx's searchtools.js (defer).
 *
 * - Snippets without fetching pages: Sphinx's search page fetches each result's
 *   page to cut a snippet from it, which a browser refuses for file:// URLs.
 *   The build writes every page's text, section by section (no TeX source, no
 *   listing line numbers), into search-text-data.js as
 *   window.LLM_SEARCH_TEXT = {page: [[id, title, text], ...]}; the fetch of a
 *   page of the book is answered from it, with the text of the section the
 *   result links to.
 * - Results land on the section that matches: a full-text result links to the
 *   first section of its page that holds every search word (the phrase, for a
 *   hyphenated or quoted query), not to the page top.
 * - Hyphenated terms and quoted phrases match as written: "log-sum-exp" finds
 *   the pages that contain "log-sum-exp" (or "log sum exp"), not every page
 *   with "log", "sum" and "exp" somewhere.
 * - Each glossary hit is titled with its term ("Glossary › softmax").
 * - A chapter's text ranks above the API reference's entries for the same word.
 */
(() => {
  "use strict";
  const texts = window.LLM_SEARCH_TEXT || {};
  const browserFetch = window.fetch.bind(window);
  /** page -> index of the section its result links to, for the snippet. */
  const chosen = {};

  /** The page name ("chapters/16-model-autodiff-ops") a URL of the book points at, or null. */
  const pageName = (request) => {
    const address = typeof request === "string" ? request : request && request.url;
    if (!address || typeof DOCUMENTATION_OPTIONS === "undefined") return null;
    const root = new URL(DOCUMENTATION_OPTIONS.URL_ROOT || "./", document.baseURI);
    const suffix = DOCUMENTATION_OPTIONS.FILE_SUFFIX || ".html";
    const url = new URL(address, document.baseURI);
    if (!url.href.startsWith(root.href) || !url.pathname.endsWith(suffix)) return null;
    const name = decodeURIComponent(url.href.slice(root.href.length).split(/[?#]/)[0]);
    return name.slice(0, -suffix.length);
  };

  const escape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  window.fetch = (request, options) => {
    const name = pageName(request);
    if (name !== null && Object.prototype.hasOwnProperty.call(texts, name)) {
      const sections = texts[name];
      const index = chosen[name];
      const text = index !== undefined ? sections[index][2] : sections.map((section) => section[2]).join(" ");
      const body = `<!DOCTYPE html><html><body><div role="main">${escape(text)}</div></body></html>`;
      return Promise.resolve(new Response(body, { headers: { "Content-Type": "text/html" } }));
    }
    return browserFetch(request, options);
  };

  if (typeof Search === "undefined" || typeof Scorer === "undefined") return;

  // --- The query as typed: words, and the phrases that must appear as written.
  const query = () => (new URLSearchParams(window.location.search).get("q") || "").trim();
  /** Phrases: "quoted text" and words joined by hyphens, lower case. */
  const phrases = (text) => {
    const found = [];
    text.replace(/"([^"]+)"/g, (_, phrase) => { found.push(phrase.toLowerCase().trim()); return ""; })
        .split(/\s+/).forEach((word) => { if (/\w-\w/.test(word)) found.push(word.toLowerCase().replace(/^\W+|\W+$/g, "")); });
    return found.filter((phrase) => phrase);
  };
  /** A phrase matches with hyphens, spaces or nothing between its words. */
  const phrasePattern = (phrase) => new RegExp(phrase.split(/[\s-]+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\-]?"), "i");
  const words = (text) => text.toLowerCase().split(/[^\p{Letter}\p{Number}_]+/u).filter((w) => w.length > 1);

  const required = phrases(query()).map(phrasePattern);
  const terms = words(query().replace(/"/g, " "));

  /** The index of the first section of ``page`` that holds every phrase and word, else -1. */
  const bestSection = (page) => {
    const sections = texts[page] || [];
    let fallback = -1;
    for (let i = 0; i < sections.length; i += 1) {
      // The formula words (sections[i][3]) count for landing, not for snippets.
      const text = `${sections[i][1]} ${sections[i][2]} ${sections[i][3] || ""}`;
      if (!required.every((pattern) => pattern.test(text))) continue;
      const lower = text.toLowerCase();
      if (terms.every((term) => lower.includes(term))) return i;
      if (fallback < 0 && terms.some((term) => lower.includes(term))) fallback = i;
    }
    return fallback;
  };
  const pageHasPhrases = (page) => {
    const sections = texts[page];
    if (!sections || !required.length) return true;
    const text = sections.map((section) => `${section[1]} ${section[2]} ${section[3] || ""}`).join(" ");
    return required.every((pattern) => pattern.test(text));
  };

  const wholeQuery = terms.length > 1 ? phrasePattern(terms.join(" ")) : null;
  const hasPhrase = (page) => Boolean(wholeQuery) && (texts[page] || []).some((section) => wholeQuery.test(section[2]));

  // --- Drop full-text results that lack a phrase; drop object results whose name
  // does not hold it (an API entry named "log" is no answer to "log-sum-exp").
  const termsSearch = Search.performTermsSearch;
  Search.performTermsSearch = (...args) => termsSearch(...args).filter((result) => pageHasPhrases(result[0]));
  const objectSearch = Search.performObjectSearch;
  Search.performObjectSearch = (...args) => {
    const results = objectSearch(...args);
    if (!required.length) return results;
    const squeeze = (text) => text.toLowerCase().replace(/[^a-z0-9]/g, "");
    const wanted = phrases(query()).map(squeeze);
    return results.filter((result) => wanted.every((phrase) => squeeze(result[1]).includes(phrase)));
  };

  // --- Titles, landing sections and ranking, applied to every result before sorting.
  const isChapter = (page) => /^chapters\//.test(page);
  Scorer.score = (result) => {
    const [page, title, anchor, description] = result;
    let score = result[4];
    const sections = texts[page] || [];
    if (page === "glossary" && /^#term-/.test(anchor)) {
      const entry = sections.find((section) => `#${section[0]}` === anchor);
      if (entry) result[1] = `Glossary › ${entry[1]}`;
    }
    if (!anchor && !description) {
      const index = bestSection(page);
      if (index >= 0 && sections[index][0]) {
        result[2] = `#${sections[index][0]}`;
        const heading = sections[index][1];
        if (page === "glossary" && /^term-/.test(sections[index][0])) result[1] = `Glossary › ${heading}`;
        else if (heading && heading !== title && index > 1) result[1] = `${title} › ${heading}`;
        chosen[page] = index;
      }
    }
    if (/^api\//.test(page)) score -= 20;          // the reference after the teaching text
    else if (isChapter(page)) score += 5;
    if (required.length && !pageHasPhrases(page)) score -= 100;
    // Several words: a page that has them side by side ranks above one that has them apart.
    if (!required.length && terms.length > 1 && hasPhrase(page)) score += 10;
    return score;
  };
})();

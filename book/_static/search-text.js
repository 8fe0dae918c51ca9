/* Search snippets without fetching pages (book/_ext/llm_html.py).
 *
 * Sphinx's search page fetches every result's HTML page to cut a snippet from
 * it; a browser refuses fetch() for file:// URLs, so a book opened from disk
 * showed results without text and logged errors. The build writes each page's
 * plain text (no TeX source, no listing line numbers) into
 * search-text-data.js as window.LLM_SEARCH_TEXT; this script answers the
 * search page's fetch of a page of the book from that text, and leaves every
 * other request to the browser.
 */
(() => {
  "use strict";
  const texts = window.LLM_SEARCH_TEXT || {};
  const browserFetch = window.fetch.bind(window);

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

  const escape = (text) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  window.fetch = (request, options) => {
    const name = pageName(request);
    if (name !== null && Object.prototype.hasOwnProperty.call(texts, name)) {
      const body = `<!DOCTYPE html><html><body><div role="main">${escape(texts[name])}</div></body></html>`;
      return Promise.resolve(new Response(body, { headers: { "Content-Type": "text/html" } }));
    }
    return browserFetch(request, options);
  };
})();

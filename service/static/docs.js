// Starts Swagger UI on the API reference page (GET /schema) over the document its
// container names; a file of its own, so the page's policy allows scripts of this origin only.
// The page's own words (title, header, the note that the reference itself is in English) come
// from the pages' catalogues, with the language picker in the header.
"use strict";
const container = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: container.dataset.document,
  domNode: container,
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis],
});

import("/static/i18n.js").then(async ({ loadLanguage, t }) => {
  await loadLanguage();
  document.title = t("docs.title");
});

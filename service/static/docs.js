// Starts Swagger UI on the API reference page (GET /schema) over the document its
// container names; a file of its own, so the page's policy allows scripts of this origin only.
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

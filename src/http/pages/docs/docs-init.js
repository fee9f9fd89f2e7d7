// Renders the service's own OpenAPI document with Swagger UI. Nothing leaves this origin: the
// spec validator badge (validator.swagger.io) is off and every asset is served by the service.
window.addEventListener('DOMContentLoaded', () => {
  window.ui = window.SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});

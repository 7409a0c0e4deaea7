// fake-honcho's API reference: renders an OpenAPI 3.1 document as HTML, in the browser
// (mountApiDocs) or anywhere JavaScript runs (renderDocument returns a string).
// Written for the fake's own document: operations grouped by tag, their parameters,
// bodies and answers, the schemas they use, and (with tryIt) a form that sends a request.
"use strict";

const METHODS = ["get", "post", "put", "patch", "delete"];

function escapeHtml(value) {
  return String(value)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function refName(ref) {
  return ref.slice(ref.lastIndexOf("/") + 1);
}

function schemaLink(name) {
  return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
}

// A one-line type: "Workspace", "array of Message", "string | null", "integer (1..100)".
function typeText(schema) {
  if (!schema || typeof schema !== "object" || Object.keys(schema).length === 0) {
    return "any";
  }
  if (schema.$ref) {
    return schemaLink(refName(schema.$ref));
  }
  const choices = schema.anyOf || schema.oneOf;
  if (choices) {
    return choices.map(typeText).join(" | ");
  }
  if (schema.enum) {
    return schema.enum.map((v) => escapeHtml(JSON.stringify(v))).join(" | ");
  }
  if (schema.const !== undefined) {
    return escapeHtml(JSON.stringify(schema.const));
  }
  if (schema.type === "array") {
    return `array of ${typeText(schema.items)}`;
  }
  if (schema.type === "object" && !schema.properties) {
    const values = schema.additionalProperties;
    return values && typeof values === "object" ? `map of ${typeText(values)}` : "object";
  }
  let text = escapeHtml(schema.type || "object");
  if (schema.format) {
    text += ` (${escapeHtml(schema.format)})`;
  }
  const low = schema.minimum ?? schema.minLength ?? schema.minItems;
  const high = schema.maximum ?? schema.maxLength ?? schema.maxItems;
  if (low !== undefined || high !== undefined) {
    text += ` [${escapeHtml(low ?? "")}..${escapeHtml(high ?? "")}]`;
  }
  return text;
}

function propertiesTable(schema) {
  const properties = schema.properties || {};
  const required = new Set(schema.required || []);
  const rows = Object.keys(properties).map((name) => {
    const property = properties[name];
    const flag = required.has(name) ? "required" : "";
    const extra = property.default !== undefined ? ` default ${escapeHtml(JSON.stringify(property.default))}` : "";
    return `<tr><td><code>${escapeHtml(name)}</code></td><td>${typeText(property)}${extra}</td><td>${flag}</td></tr>`;
  });
  if (rows.length === 0) {
    return `<p>${typeText(schema)}</p>`;
  }
  return `<table><tr><th>field</th><th>type</th><th></th></tr>${rows.join("")}</table>`;
}

function parametersTable(parameters) {
  if (!parameters || parameters.length === 0) {
    return "";
  }
  const rows = parameters.map((p) => {
    const schema = p.schema || {};
    const extra = schema.default !== undefined ? ` default ${escapeHtml(JSON.stringify(schema.default))}` : "";
    return (
      `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td>` +
      `<td>${typeText(schema)}${extra}</td><td>${p.required ? "required" : ""}</td>` +
      `<td>${escapeHtml(p.description || "")}</td></tr>`
    );
  });
  return (
    "<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th></th><th></th></tr>" +
    rows.join("") +
    "</table>"
  );
}

function bodySection(body) {
  if (!body) {
    return "";
  }
  const parts = Object.keys(body.content || {}).map((media) => {
    const schema = body.content[media].schema;
    const shape = schema && schema.type === "object" && schema.properties ? propertiesTable(schema) : `<p>${typeText(schema)}</p>`;
    return `<p class="media">${escapeHtml(media)}${body.required ? "" : " (optional)"}</p>${shape}`;
  });
  return `<h4>Request body</h4>${parts.join("")}`;
}

function responsesSection(responses) {
  const rows = Object.keys(responses || {}).map((status) => {
    const response = responses[status];
    const content = response.content || {};
    const kinds = Object.keys(content).map((media) => {
      const schema = content[media].schema;
      return `${escapeHtml(media)}: ${schema === undefined ? "stream" : typeText(schema)}`;
    });
    return (
      `<tr><td><code>${escapeHtml(status)}</code></td><td>${escapeHtml(response.description || "")}</td>` +
      `<td>${kinds.join("<br>") || "no body"}</td></tr>`
    );
  });
  return `<h4>Responses</h4><table><tr><th>status</th><th></th><th>body</th></tr>${rows.join("")}</table>`;
}

function tryItForm(path, method, operation) {
  const inputs = (operation.parameters || []).map(
    (p) =>
      `<label>${escapeHtml(p.name)} <small>(${escapeHtml(p.in)})</small> ` +
      `<input data-in="${escapeHtml(p.in)}" name="${escapeHtml(p.name)}"></label>`
  );
  const json = operation.requestBody && operation.requestBody.content["application/json"];
  const body = json ? '<label>JSON body <textarea name="body" rows="4"></textarea></label>' : "";
  return (
    `<form class="try" data-path="${escapeHtml(path)}" data-method="${escapeHtml(method)}">` +
    `${inputs.join("")}${body}<button type="submit">Send</button><pre class="answer"></pre></form>`
  );
}

function operationSection(path, method, operation, options) {
  const id = operation.operationId || `${method}-${path}`;
  return (
    `<section class="operation" id="op-${escapeHtml(id)}">` +
    `<h3><span class="method ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> ` +
    `<code>${escapeHtml(path)}</code></h3>` +
    `<p><strong>${escapeHtml(operation.summary || "")}</strong> ${escapeHtml(operation.description || "")}</p>` +
    `<p class="id">operationId <code>${escapeHtml(id)}</code>${operation.security ? " · needs a key when auth is on" : ""}</p>` +
    parametersTable(operation.parameters) +
    bodySection(operation.requestBody) +
    responsesSection(operation.responses) +
    (options.tryIt ? tryItForm(path, method, operation) : "") +
    "</section>"
  );
}

function operationsByTag(doc) {
  const groups = new Map();
  for (const path of Object.keys(doc.paths || {})) {
    for (const method of METHODS) {
      const operation = doc.paths[path][method];
      if (operation) {
        const tag = (operation.tags && operation.tags[0]) || "other";
        if (!groups.has(tag)) {
          groups.set(tag, []);
        }
        groups.get(tag).push([path, method, operation]);
      }
    }
  }
  return groups;
}

// The whole reference as one HTML string.
function renderDocument(doc, options) {
  const opts = options || {};
  const info = doc.info || {};
  const groups = operationsByTag(doc);
  const nav = [...groups.keys()].map((tag) => `<a href="#tag-${escapeHtml(tag)}">${escapeHtml(tag)}</a>`);
  const sections = [...groups.entries()].map(
    ([tag, operations]) =>
      `<h2 id="tag-${escapeHtml(tag)}">${escapeHtml(tag)}</h2>` +
      operations.map(([path, method, operation]) => operationSection(path, method, operation, opts)).join("")
  );
  const schemas = (doc.components && doc.components.schemas) || {};
  const schemaSections = Object.keys(schemas).map(
    (name) =>
      `<section class="schema" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>` +
      `${schemas[name].description ? `<p>${escapeHtml(schemas[name].description)}</p>` : ""}` +
      `${propertiesTable(schemas[name])}</section>`
  );
  // in a form of its own: a browser warns about a password field outside any form
  const key = opts.tryIt
    ? '<form class="key"><label>Bearer key <input id="api-key" type="password" autocomplete="off"></label></form>'
    : "";
  return (
    `<header><h1>${escapeHtml(info.title || "API")} <small>${escapeHtml(info.version || "")}</small></h1>` +
    `<p>${escapeHtml(info.description || "")}</p>` +
    `<p><a href="${escapeHtml(opts.documentUrl || "openapi.json")}">OpenAPI document</a></p>${key}` +
    `<nav>${nav.join(" · ")} · <a href="#schemas">schemas</a></nav></header>` +
    `<main>${sections.join("")}<h2 id="schemas">schemas</h2>${schemaSections.join("")}</main>`
  );
}

async function sendTry(form, root) {
  let path = form.dataset.path;
  const query = new URLSearchParams();
  for (const input of form.querySelectorAll("input[data-in]")) {
    if (input.value === "") {
      continue;
    }
    if (input.dataset.in === "path") {
      path = path.replace(`{${input.name}}`, encodeURIComponent(input.value));
    } else {
      query.append(input.name, input.value);
    }
  }
  const headers = {};
  const key = root.querySelector("#api-key");
  if (key && key.value) {
    headers.Authorization = `Bearer ${key.value}`;
  }
  const init = { method: form.dataset.method.toUpperCase(), headers };
  const body = form.querySelector("textarea[name=body]");
  if (body && body.value.trim()) {
    headers["Content-Type"] = "application/json";
    init.body = body.value;
  }
  const search = query.toString();
  const url = new URL(`.${path}${search ? `?${search}` : ""}`, root.dataset.base);
  const answer = form.querySelector(".answer");
  try {
    const response = await fetch(url, init);
    answer.textContent = `${response.status}\n${await response.text()}`;
  } catch (error) {
    answer.textContent = String(error);
  }
}

// Fetches the document at options.documentUrl and renders it into root.
async function mountApiDocs(root, options) {
  const opts = { documentUrl: "openapi.json", ...options };
  const base = new URL(opts.documentUrl, document.baseURI);
  root.dataset.base = new URL(".", base).href;
  try {
    const response = await fetch(base);
    const doc = await response.json();
    document.title = `${(doc.info && doc.info.title) || "API"} ${opts.tryIt ? "docs" : "reference"}`;
    root.innerHTML = renderDocument(doc, opts);
  } catch (error) {
    root.textContent = `Could not read ${base}: ${error}`;
    return;
  }
  root.addEventListener("submit", (event) => {
    event.preventDefault();
    if (event.target.classList.contains("try")) {
      sendTry(event.target, root);
    }
  });
}

if (typeof module !== "undefined") {
  module.exports = { escapeHtml, renderDocument, typeText };
}

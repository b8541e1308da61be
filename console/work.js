// The work pages: jobs (upload, live status), documents (reprocess), datasets (build from a selection,
// export in every format), webhooks (deliveries, redeliver), API keys, usage. Each action is one API
// call; lists are the API's pages.

import { api, download, failure, h, nav, ok, page, pager, t, table, when } from "/console/assets/app.js";

const FORMATS = ["jsonl", "csv", "parquet", "markdown", "xml", "xlsx", "arrow"];
const EVENTS = ["job.completed", "job.failed", "dataset.ready", "subject.erased"];
const main = () => document.getElementById("main");

// ---------------------------------------------------------------- jobs

page("jobs", async (params) => {
  const status = h("div", { id: "jobs-status", role: "status", "aria-live": "polite" });
  const list = h("div", { id: "jobs-list" });
  const input = h("input", { type: "file", id: "files", name: "files", multiple: true });
  const masked = h("input", { type: "checkbox", id: "masked", checked: true });
  const upload = h("form", { id: "upload-form" },
    h("div", { class: "field" }, h("label", { for: "files" }, t("files_to_process")), input),
    h("div", { class: "field inline" }, masked, h("label", { for: "masked" }, t("mask_results"))),
    h("button", { type: "submit" }, t("upload")));
  let timer = null;
  const show = async (number) => {
    const answer = await api("GET", `/v1/jobs?page=${number}&page_size=20`);
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const data = answer.body.data;
    list.replaceChildren(
      table("jobs-table", t("nav_jobs"), [
        [t("job"), (job) => job.job_id],
        [t("kind"), (job) => t(`job_${job.job_type}`)],
        [t("status"), (job) => h("span", { class: `status ${job.status}`, dataset: { status: job.status } }, t(`status_${job.status}`))],
        [t("findings"), (job) => (job.pii_count ?? "–")],
        [t("quality"), (job) => job.quality_grade || "–"],
        [t("created"), (job) => when(job.created_at)],
      ], data.items),
      pager(data, show));
    clearTimeout(timer);
    // Live status: while a job is queued or running, the list is read again every second.
    if (data.items.some((job) => job.status === "queued" || job.status === "running")) {
      timer = setTimeout(() => { if (document.body.contains(list)) show(number); }, 1000);
    }
  };
  upload.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!input.files.length) return status.replaceChildren(failure({ status: 422, body: { code: "validation_error", detail: [{ loc: ["files"], msg: t("choose_files") }] } }));
    const form = new FormData();
    for (const file of input.files) form.append("files", file, file.name);
    const answer = await api("POST", `/v1/data-process/async?masked=${masked.checked}`, { form });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    const data = answer.body.data;
    status.replaceChildren(ok(t("queued", { n: data.job_ids.length, rejected: data.rejected.length })));
    upload.reset();
    masked.checked = true;
    show(1);
  });
  main().append(h("h1", {}, t("nav_jobs")), upload, status, h("h2", {}, t("recent_jobs")), list);
  await show(Number(params.get("page")) || 1);
});

// ---------------------------------------------------------------- documents

/**
 * A filter form over a list: its fields (`[name, label, control]`) start from the page's address,
 * and applying them writes them into the address (so that a filtered list can be bookmarked), which
 * shows the list again from its first page.
 */
function filters(id, route, params, fields) {
  const node = h("form", { id, class: "filters", role: "search", "aria-label": t("filters") },
    fields.map(([name, label, control]) => {
      control.id = `${id}-${name}`;
      control.name = name;
      control.value = params.get(name) || "";
      return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
    }),
    h("div", { class: "field actions" },
      h("button", { type: "submit" }, t("apply_filters")),
      h("a", { class: "button secondary", href: `#/${route}` }, t("clear_filters"))));
  node.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = new URLSearchParams();
    for (const [name, value] of new FormData(node)) if (String(value).trim()) chosen.set(name, String(value).trim());
    location.hash = `#/${route}?${chosen}`;
  });
  return node;
}

/** A select of `[value, text]` choices, the first one meaning "any". */
function choice(options) {
  return h("select", {}, options.map(([value, text]) => h("option", { value }, text)));
}

/** The query of a list call: the page's filters named in `names`, and the page asked for. */
function listQuery(params, names, number) {
  const query = new URLSearchParams({ page: String(number), page_size: "20" });
  for (const name of names) if (params.get(name)) query.set(name, params.get(name));
  return query;
}

/** A completed masked result's file in its own format (`GET /v1/executions/{id}/file`), as a button;
 * nothing for another result. `status` tells how the download went. */
function maskedFile(execution, status) {
  if (!execution || execution.status !== "completed" || !execution.masked) return "";
  return h("button", { type: "button", class: "secondary", id: `download-file-${execution.execution_id}`,
    onclick: () => download(`/v1/executions/${execution.execution_id}/file`, null, status) },
    t("download_file"));
}

page("documents", async (params) => {
  const status = h("div", { id: "documents-status", role: "status", "aria-live": "polite" });
  const list = h("div", { id: "documents-list" });
  const reprocess = async (document_) => {
    const answer = await api("POST", `/v1/documents/${document_.document_id}/reprocess`, { json: { masked: true } });
    status.replaceChildren(answer.ok ? ok(t("reprocess_queued", { job: answer.body.data.job_id })) : failure(answer));
  };
  const show = async (number) => {
    const query = listQuery(params, ["filename", "format", "source", "connector_id"], number);
    const answer = await api("GET", `/v1/documents?${query}`);
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const data = answer.body.data;
    list.replaceChildren(table("documents-table", t("nav_documents"), [
      [t("document"), (d) => `${d.filename} (#${d.document_id})`],
      [t("format"), (d) => d.format],
      [t("size"), (d) => `${Math.ceil(d.size / 1024)} KB`],
      [t("latest_result"), (d) => (d.latest_execution
        ? h("a", { href: `#/executions?document_id=${d.document_id}` }, `#${d.latest_execution.execution_id}`)
        : "–")],
      [t("created"), (d) => when(d.created_at)],
      ["", (d) => h("span", {},
        h("button", { type: "button", class: "secondary", onclick: () => reprocess(d) }, t("reprocess")),
        maskedFile(d.latest_execution, status))],
    ], data.items), pager(data, show));
  };
  main().append(h("h1", {}, t("nav_documents")),
    filters("documents-filters", "documents", params, [
      ["filename", t("filter_filename"), h("input", { type: "search" })],
      ["format", t("format"), h("input", { type: "text", autocomplete: "off" })],
      ["source", t("source"), choice([["", t("any")], ["upload", t("source_upload")], ["connector", t("source_connector")]])],
    ]), status, list);
  await show(Number(params.get("page")) || 1);
});

// ---------------------------------------------------------------- executions

page("executions", async (params) => {
  const status = h("div", { id: "executions-status", role: "status", "aria-live": "polite" });
  const list = h("div", { id: "executions-list" });
  const show = async (number) => {
    const query = listQuery(params, ["status", "masked", "document_id"], number);
    const answer = await api("GET", `/v1/executions?${query}`);
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const data = answer.body.data;
    list.replaceChildren(table("executions-table", t("nav_executions"), [
      [t("result"), (e) => `#${e.execution_id}`],
      [t("document"), (e) => `${(e.result_meta && e.result_meta.filename) || ""} (#${e.document_id})`],
      [t("status"), (e) => h("span", { dataset: { status: e.status } }, t(`status_${e.status}`))],
      [t("masked"), (e) => t(e.masked ? "yes" : "no")],
      [t("findings"), (e) => String(e.pii_count ?? "–")],
      [t("quality"), (e) => e.quality_grade || "–"],
      [t("finished"), (e) => when(e.finished_at)],
      ["", (e) => maskedFile(e, status)],
    ], data.items), pager(data, show));
  };
  main().append(h("h1", {}, t("nav_executions")),
    filters("executions-filters", "executions", params, [
      ["status", t("status"), choice([["", t("any")], ["completed", t("status_completed")], ["failed", t("status_failed")]])],
      ["masked", t("masked"), choice([["", t("any")], ["true", t("yes")], ["false", t("no")]])],
      ["document_id", t("document_number"), h("input", { type: "number", min: "1", inputmode: "numeric" })],
    ]), status, list);
  await show(Number(params.get("page")) || 1);
});

// ---------------------------------------------------------------- datasets

page("datasets", async () => {
  const status = h("div", { id: "datasets-status", role: "status", "aria-live": "polite" });
  const list = h("div", { id: "datasets-list" });
  const choices = h("fieldset", { id: "executions-choice" }, h("legend", {}, t("results_to_include")));
  const name = h("input", { type: "text", id: "dataset-name", name: "name", required: true });
  const build = h("form", { id: "dataset-form" },
    h("div", { class: "field" }, h("label", { for: "dataset-name" }, t("dataset_name")), name), choices,
    h("button", { type: "submit" }, t("build_dataset")));
  const executions = await api("GET", "/v1/executions?page=1&page_size=50");
  if (executions.ok) {
    const masked = executions.body.data.items.filter((e) => e.status === "completed" && e.masked);
    if (!masked.length) choices.append(h("p", { class: "muted" }, t("no_results_yet")));
    for (const execution of masked) {
      const id = `execution-${execution.execution_id}`;
      const label = `#${execution.execution_id} · ${(execution.result_meta && execution.result_meta.filename) || ""} · ${t("findings_n", { n: execution.pii_count ?? 0 })}`;
      choices.append(h("div", { class: "field inline" },
        h("input", { type: "checkbox", id, value: String(execution.execution_id), name: "execution" }),
        h("label", { for: id }, label)));
    }
  } else {
    choices.append(failure(executions));
  }
  let timer = null;
  const show = async () => {
    const answer = await api("GET", "/v1/datasets?page=1&page_size=20");
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const items = answer.body.data.items;
    list.replaceChildren(table("datasets-table", t("nav_datasets"), [
      [t("dataset"), (d) => `${d.name} (${d.dataset_id}, v${d.version})`],
      [t("status"), (d) => h("span", { dataset: { status: d.status } }, t(`status_${d.status}`))],
      [t("rows"), (d) => String(d.row_count)],
      [t("export"), (d) => (d.status === "ready"
        ? h("div", { class: "formats" }, FORMATS.map((format) => h("button", {
          type: "button", class: "secondary", dataset: { format },
          "aria-label": t("export_as", { format, name: d.name }),
          onclick: () => download(`/v1/datasets/${d.dataset_id}/export?format=${format}`, `${d.name}.${format === "arrow" ? "arrow.zip" : format}`, status),
        }, format)))
        : "–")],
    ], items));
    clearTimeout(timer);
    if (items.some((d) => d.status === "queued" || d.status === "building")) {
      timer = setTimeout(() => { if (document.body.contains(list)) show(); }, 1000);
    }
  };
  build.addEventListener("submit", async (event) => {
    event.preventDefault();
    const ids = Array.from(choices.querySelectorAll("input:checked")).map((box) => Number(box.value));
    const answer = await api("POST", "/v1/datasets", { json: { name: name.value, execution_ids: ids } });
    status.replaceChildren(answer.ok ? ok(t("dataset_queued", { id: answer.body.data.id })) : failure(answer));
    if (answer.ok) show();
  });
  main().append(h("h1", {}, t("nav_datasets")), build, status, h("h2", {}, t("your_datasets")), list);
  await show();
});

// ---------------------------------------------------------------- webhooks

page("webhooks", async () => {
  const status = h("div", { id: "webhooks-status", role: "status", "aria-live": "polite" });
  const list = h("div", { id: "webhooks-list" });
  const url = h("input", { type: "url", id: "webhook-url", name: "url", required: true });
  const events = h("fieldset", {}, h("legend", {}, t("events")), EVENTS.map((event) => {
    const id = `event-${event.replace(".", "-")}`;
    return h("div", { class: "field inline" },
      h("input", { type: "checkbox", id, value: event, checked: event.startsWith("job.") }), h("label", { for: id }, event));
  }));
  const create = h("form", { id: "webhook-form" },
    h("div", { class: "field" }, h("label", { for: "webhook-url" }, t("webhook_url")), url), events,
    h("button", { type: "submit" }, t("register_webhook")));
  const deliveries = async (hook, into) => {
    const answer = await api("GET", `/v1/webhooks/${hook.id}/deliveries?page=1&page_size=20`);
    if (!answer.ok) return into.replaceChildren(failure(answer));
    into.replaceChildren(table(`deliveries-${hook.id}`, t("deliveries"), [
      [t("event"), (d) => d.event],
      [t("status"), (d) => h("span", { dataset: { status: d.status } }, t(`delivery_${d.status}`))],
      [t("attempts"), (d) => String(d.attempt_count)],
      [t("created"), (d) => when(d.created_at)],
      ["", (d) => h("button", { type: "button", class: "secondary", onclick: async () => {
        const again = await api("POST", `/v1/webhooks/${hook.id}/deliveries/${d.delivery_id}/redeliver`);
        status.replaceChildren(again.ok ? ok(t("redelivery_queued")) : failure(again));
        deliveries(hook, into);
      } }, t("redeliver"))],
    ], answer.body.data.items));
  };
  const show = async () => {
    const answer = await api("GET", "/v1/webhooks?page=1&page_size=50");
    if (!answer.ok) return list.replaceChildren(failure(answer));
    const hooks = answer.body.data.items;
    list.replaceChildren(...(hooks.length ? hooks.map((hook) => {
      const log = h("div", { class: "deliveries" });
      const section = h("section", { class: "card", "aria-label": hook.url },
        h("h3", {}, hook.url),
        h("p", { class: "muted" }, hook.events.join(", ")),
        h("button", { type: "button", class: "secondary", onclick: () => deliveries(hook, log) }, t("show_deliveries")),
        log);
      deliveries(hook, log);
      return section;
    }) : [h("p", { class: "muted" }, t("nothing_yet"))]));
  };
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = Array.from(events.querySelectorAll("input:checked")).map((box) => box.value);
    const answer = await api("POST", "/v1/webhooks", { json: { url: url.value, events: chosen } });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    const secret = answer.body.data.secret;
    status.replaceChildren(ok(secret ? t("webhook_secret", { secret }) : t("webhook_registered")));
    show();
  });
  main().append(h("h1", {}, t("nav_webhooks")), create, status, h("h2", {}, t("your_webhooks")), list);
  await show();
});

// ---------------------------------------------------------------- API keys

page("keys", async () => {
  const status = h("div", { id: "keys-status", role: "status", "aria-live": "polite" });
  const list = h("div", { id: "keys-list" });
  const name = h("input", { type: "text", id: "key-name", name: "name", required: true });
  const scope = h("select", { id: "key-scope", name: "scope" },
    ["read_only", "processing", "admin"].map((value) => h("option", { value, selected: value === "processing" }, t(`scope_${value}`))));
  const create = h("form", { id: "key-form" },
    h("div", { class: "field" }, h("label", { for: "key-name" }, t("key_name")), name),
    h("div", { class: "field" }, h("label", { for: "key-scope" }, t("key_scope")), scope),
    h("button", { type: "submit" }, t("create_key")));
  const show = async () => {
    const answer = await api("GET", "/v1/me/api-keys?page=1&page_size=50");
    if (!answer.ok) return list.replaceChildren(failure(answer));
    list.replaceChildren(table("keys-table", t("nav_keys"), [
      [t("key_name"), (k) => k.name],
      [t("prefix"), (k) => h("code", {}, k.prefix)],
      [t("key_scope"), (k) => t(`scope_${k.scope}`)],
      [t("last_used"), (k) => when(k.last_used_at)],
      ["", (k) => (k.revoked_at ? t("revoked") : h("button", { type: "button", class: "secondary", onclick: async () => {
        const gone = await api("DELETE", `/v1/me/api-keys/${k.id}`);
        status.replaceChildren(gone.ok ? ok(t("key_revoked")) : failure(gone));
        show();
      } }, t("revoke")))],
    ], answer.body.data.items));
  };
  create.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", "/v1/me/api-keys", { json: { name: name.value, scope: scope.value } });
    if (!answer.ok) return status.replaceChildren(failure(answer));
    status.replaceChildren(h("div", { class: "message ok", role: "status" },
      h("p", {}, t("key_created")), h("code", { id: "new-key" }, answer.body.data.api_key)));
    create.reset();
    show();
  });
  main().append(h("h1", {}, t("nav_keys")), create, status, h("h2", {}, t("your_keys")), list);
  await show();
});

// ---------------------------------------------------------------- usage

page("usage", async () => {
  const answer = await api("GET", "/v1/usage");
  main().append(h("h1", {}, t("nav_usage")));
  if (!answer.ok) return main().append(failure(answer));
  const usage = answer.body.data;
  const period = usage.period || {};
  main().append(h("dl", { class: "summary", id: "usage-summary" },
    h("div", {}, h("dt", {}, t("plan")), h("dd", {}, usage.plan)),
    h("div", {}, h("dt", {}, t("credits_remaining")), h("dd", { id: "credits-remaining" }, String(usage.credits.remaining))),
    h("div", {}, h("dt", {}, t("credits_used")), h("dd", {}, String(usage.credits.used))),
    h("div", {}, h("dt", {}, t("credits_reserved")), h("dd", {}, String(usage.credits.reserved))),
    h("div", {}, h("dt", {}, t("documents_processed")), h("dd", {}, String(usage.documents_processed))),
    h("div", {}, h("dt", {}, t("pages_processed")), h("dd", {}, String(usage.pages_processed))),
    h("div", {}, h("dt", {}, t("period")), h("dd", {}, period.start ? `${when(period.start)} – ${when(period.end)}` : "–"))));
});

nav([["jobs", "nav_jobs"], ["documents", "nav_documents"], ["executions", "nav_executions"], ["datasets", "nav_datasets"],
  ["webhooks", "nav_webhooks"], ["keys", "nav_keys"]]);

"""Schemathesis hooks for docsieve (loaded with SCHEMATHESIS_HOOKS=docsieve_checks).

`no_undocumented_server_error` replaces the built-in `not_a_server_error`: a 5xx fails the run, except a
status the operation documents whose JSON body names a stable code other than `internal_error` (an
upstream the route needs is down or not configured, as a 503 `llm_unavailable`).
"""

import schemathesis


@schemathesis.check
def no_undocumented_server_error(ctx, response, case):
    status = response.status_code
    if status < 500:
        return None
    responses = case.operation.definition.raw.get("responses", {})
    if str(status) in responses and status != 500:
        try:
            code = response.json().get("code")
        except Exception:  # noqa: BLE001 - a non-JSON 5xx is a finding like any other
            code = None
        if isinstance(code, str) and code and code != "internal_error":
            return None
    raise AssertionError(f"server error {status}: {response.text[:300]}")

"""Schemathesis hooks for docsieve (loaded with SCHEMATHESIS_HOOKS=docsieve_checks).

`no_server_error_but_a_documented_501` replaces the built-in `not_a_server_error`: a 5xx fails the run,
except a 501 `not_implemented` on an operation whose document lists 501 (a feature not built yet).
"""

import schemathesis


@schemathesis.check
def no_server_error_but_a_documented_501(ctx, response, case):
    status = response.status_code
    if status < 500:
        return None
    responses = case.operation.definition.raw.get("responses", {})
    if status == 501 and "501" in responses:
        try:
            code = response.json().get("code")
        except Exception:  # noqa: BLE001 - a non-JSON 501 is a finding like any other
            code = None
        if code == "not_implemented":
            return None
    raise AssertionError(f"server error {status}: {response.text[:300]}")

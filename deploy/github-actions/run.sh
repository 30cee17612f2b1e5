#!/usr/bin/env bash
# Runs `axgate test` for action.yml: expands the scenario files, picks the authentication,
# sets the step's outputs (junit, artifacts, result) and exits with axgate's exit code
# (0 passed, 1 a case failed, 2 invalid files or usage, 3 server unreachable, 4 token refused).
#
# Environment: AXGATE_CLIENT_URL (read by axgate itself), AXGATE_CLIENT_TOKEN (the static token,
# auth = token; read by axgate, never put on a command line), ACTION_FILES, ACTION_AUTH
# (github-oidc, token, none), ACTION_AUDIENCE, ACTION_JUNIT, ACTION_ARTIFACTS, ACTION_HTML (empty:
# no HTML page); GITHUB_OUTPUT and GITHUB_STEP_SUMMARY when run by GitHub Actions.
set -euo pipefail

fail() {
    echo "::error::axgate test: $*" >&2
    if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "result=error" >> "$GITHUB_OUTPUT"; fi
    exit 2
}

[ -n "${AXGATE_CLIENT_URL:-}" ] || fail "the url input is empty (the server's /mcp endpoint)"
junit="${ACTION_JUNIT:-axgate-junit.xml}"
artifacts="${ACTION_ARTIFACTS:-axgate-artifacts}"
html="${ACTION_HTML-axgate-report.html}"

# The files: words of ACTION_FILES, each a path or a glob that must match something.
files=()
shopt -s nullglob
read -r -d '' -a patterns <<< "${ACTION_FILES:-}" || true
for pattern in "${patterns[@]}"; do
    # shellcheck disable=SC2206 # the pattern is meant to expand as a glob here
    matched=($pattern)
    [ "${#matched[@]}" -gt 0 ] || fail "no scenario file matches '$pattern' (the files input)"
    files+=("${matched[@]}")
done
shopt -u nullglob
[ "${#files[@]}" -gt 0 ] || fail "the files input names no scenario file"

# --github-annotations: an `::error file=…,line=…` line per failed case, at its failing step,
# which GitHub shows on the run's page and beside the scenario file's line in a pull request.
args=(test --junit "$junit" --artifacts "$artifacts" --github-annotations)
# --html: one self-contained page (steps, times, the failures' outlined screenshots and trees).
if [ -n "$html" ]; then args+=(--html "$html"); fi
case "${ACTION_AUTH:-github-oidc}" in
    github-oidc)
        unset AXGATE_CLIENT_TOKEN
        [ -n "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ] ||
            fail "no GitHub OIDC token can be had: give the job 'permissions: id-token: write' (or use auth: token)"
        args+=(--github-oidc)
        if [ -n "${ACTION_AUDIENCE:-}" ]; then args+=(--audience "$ACTION_AUDIENCE"); fi
        ;;
    token)
        [ -n "${AXGATE_CLIENT_TOKEN:-}" ] || fail "auth is token but the token input is empty"
        ;;
    none)
        unset AXGATE_CLIENT_TOKEN
        ;;
    *) fail "auth must be github-oidc, token or none, not '${ACTION_AUTH}'" ;;
esac

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "junit=$junit"
        echo "artifacts=$artifacts"
        echo "html=$html"
    } >> "$GITHUB_OUTPUT"
fi

summary="$(mktemp)"
status=0
# With pipefail the pipeline fails with axgate's status (tee succeeds).
axgate "${args[@]}" "${files[@]}" | tee "$summary" || status=$?

case "$status" in
    0) result=passed ;;
    1) result=failed ;;
    *) result=error ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "result=$result" >> "$GITHUB_OUTPUT"; fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    # The job summary: the verdict, where the report and artifacts are, and axgate's summary
    # (its annotation lines left out: GitHub shows those on their own).
    {
        echo "### axgate UI tests: $result"
        echo
        echo "JUnit report: \`$junit\`"
        if [ -n "$html" ]; then echo "HTML report: \`$html\`"; fi
        if [ "$result" = failed ]; then echo "Artifacts of the failed cases: \`$artifacts\`"; fi
        echo
        echo '```'
        grep -v '^::error ' "$summary" || true
        echo '```'
    } >> "$GITHUB_STEP_SUMMARY"
fi
rm -f "$summary"
exit "$status"

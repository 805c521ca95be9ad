// Package transcript reads the session file of an LLM agent into a neutral
// Session: the messages on the conversation's chain, the compactions it went
// through, and the provider's token usage of every recorded model call, so
// that ctxsim can replay a real session as a lesson drawn as the provider
// counted it.
//
// Four formats are read, detected from the first records of the file or
// forced through Options.Format:
//
//   - Claude Code session JSON Lines (~/.claude/projects/<cwd>/<id>.jsonl).
//     Records form a tree through parentUuid (rewinds make branches); the
//     reader follows the newest leaf back to the root, crossing compactions
//     through logicalParentUuid (or, when that record is not in the file,
//     the newest record before the boundary), and keeps the results of
//     parallel tool calls that sit beside the chain. The files Claude Code
//     writes beside a session (<id>/subagents/agent-*.jsonl) are read too:
//     the compaction call (agent-acompact-*) goes to the compaction it wrote,
//     each Task sub-agent becomes a Subagent linked to the call that started
//     it.
//   - Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl):
//     response items are the chain, token_count events the provider's
//     counts, compacted records the compactions (Codex's summary is an
//     encrypted item: flagged, never shown as text).
//   - OpenAI Chat Completions JSON: {"messages": [...]} or a bare array.
//   - Gemini CLI session JSON Lines (0.40 and later).
//
// Read takes a path; ReadFS reads the same from any fs.FS, Files among them,
// so an uploaded session and its sub-agent files are read from memory.
//
// Each answer carries the provider's count of the request it answered
// (Message.Usage, once per API message); Session.Requests lists them with
// the messages each request held, for calibrating a replay to the provider's
// figures.
//
// Memory stays bounded on large files: a JSONL file is read in two passes
// (the first keeps a few fields per record to choose the chain, the second
// decodes only the records on it), lines longer than Options.MaxLine are
// refused, and a JSON array is decoded one element at a time. Options.MaxRecords,
// MaxMessages and MaxTextBytes refuse a session past them at the first
// record past them, before more work is done.
//
// With Options.Redact the reader replaces secrets (the classes a secret
// scanner flags: private keys, provider keys and tokens, passwords and
// secrets assigned in code or configuration, credentials in URLs, JWTs,
// bearer and basic authorization), e-mail addresses and the user's home
// directory in every text it returns and in the file's name, and counts what
// it replaced by class (Session.Redactions). Redactor and RedactName do the
// same for other texts.
//
// Problems with the content of a file are returned as *Error with the line
// (or message number) where they are; the reader never panics on any input.
package transcript

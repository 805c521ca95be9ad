// Package transcript reads the session file of an LLM agent into a neutral
// Session: the messages on the conversation's chain, the compactions it went
// through, and the provider's token usage, so that ctxsim can replay a real
// session as a lesson.
//
// Two formats are read, detected from the first bytes of the file or forced
// through Options.Format:
//
//   - Claude Code session JSON Lines (~/.claude/projects/<cwd>/<id>.jsonl).
//     Records form a tree through parentUuid (rewinds make branches); the
//     reader follows the newest leaf back to the root, crossing compactions
//     through logicalParentUuid, and drops everything off that chain.
//   - OpenAI Chat Completions JSON: {"messages": [...]} or a bare array.
//
// Memory stays bounded on large files: a JSONL file is read in two passes
// (the first keeps a few fields per record to choose the chain, the second
// decodes only the records on it), lines longer than Options.MaxLine are
// refused, and a JSON array is decoded one element at a time. The Session
// itself holds the chain's text, so it grows with what the file says, not
// with what it repeats or abandons.
//
// With Options.Redact the reader replaces secrets (API keys, bearer tokens),
// e-mail addresses and the user's home directory in every text it returns,
// and counts what it replaced.
//
// Problems with the content of a file are returned as *Error with the line
// (or message number) where they are; the reader never panics on any input.
package transcript

// Package uploads keeps the sessions visitors upload (POST /sessions):
// what they are, under an unguessable id, for TTL after their last use or
// until their owner forgets them, within limits per client and a memory
// budget per server.
//
// A session lives in this process's memory only: nothing of it is written
// to disk, here or (with a Remote) anywhere. With a Remote (NATS
// JetStream: an object store in memory and a key-value bucket of leases),
// every server on it serves every session, and a session outlives a
// restart of the server that received it; the stored bytes are sealed
// with a key derived from the session's id, which only its URL holds, and
// named by another value derived from it, so the store alone can neither
// read a session nor find its URL.
//
// The id is the capability: whoever holds the URL may read and forget the
// session; it never enters a log line (Redact, RedactHandler).
package uploads

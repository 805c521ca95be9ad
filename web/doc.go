// Package web serves the lessons over HTTP: the one route table, the
// handlers, URL ⇄ state, errors, content codings, the page cache, the
// assets, the library of prepared lessons (and their runs), the frames API
// and the static copy's site list. Package page builds the pages it
// serves; package rooms is the room service it routes to. It holds no
// lesson logic of its own.
package web

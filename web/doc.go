// Package web wires the HTTP routes to the engine (sim) and the views: it
// parses URLs into lesson states, runs or looks up the frames, builds view
// models and renders them. It holds no lesson logic of its own.
package web

// Package views holds the templ components of ctxsim and the view models
// they take. Components only lay out: every figure, label and URL arrives
// formatted in a view model built by package web.
package views

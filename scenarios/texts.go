package scenarios

import (
	"embed"
	"sync"

	"ctxsim/scenarios/lessonfile"
)

//go:embed texts/*.tmpl
var textFiles embed.FS

// texts are the loader's own words, one file per language
// (texts/LANG.tmpl): what it writes into a lesson, such as where a
// recorded summary came from.
var texts = sync.OnceValues(func() (*lessonfile.Texts, error) {
	return lessonfile.ParseTexts(textFiles, func(lang string) string { return "texts/" + lang + ".tmpl" }, nil)
})

// Package lessonfile is the on-disk format of a lesson directory, as
// exported types, a strict decoder and an encoder. The loader (package
// scenarios) reads lessons with it; everything that writes lesson files
// writes them with it: ctxsim import (package importer), ctxsim record
// (package recorder), tools/gentrace, tools/worstlesson.
//
// The files:
//
//	lesson.yaml        Lesson: header, mechanisms, facts, system prompt, trace
//	summaries.yaml     Summaries: the summary cards a mechanism names (any name; cards: in its configuration)
//	recordings.yaml    Recordings: summaries ctxsim record asked a model for
//	narration.LANG.md  the narration of each language (package scenarios parses it)
//	results/*.txt      result texts a call's result names (Result.File)
//
// Decode refuses what the schema does not describe or decoding would
// quietly change, and every error is an *Error with the file, the line and
// the field. Encode writes what Decode reads back to an equal value, the
// same bytes for the same value.
//
// Mechanisms are a lesson's mechanisms in file order, each configuration
// kept as its YAML node: the shape of a configuration belongs to its
// mechanism, and the loader decodes each with the type its builder
// declares (File.DecodeNode, as strict as Decode). A new mechanism needs
// nothing here: see docs/mechanisms.md.
//
// Texts are the words a program writes into lesson files, one template
// file per language of the catalog.
package lessonfile

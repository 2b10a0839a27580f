// Package locale owns the language of the bridge's own user-facing texts
// (errors, notices, the FULL TRUST block, setup's questions) and their
// catalogue. English is the source text and the key; zh-CN is the one
// translation. Text a plugin, hook, MCP server or model supplies is never
// translated: it is shown as its author wrote it.
//
// One process serves one user, so the language is process-wide: serve
// sets it from the client's LSP `initialize` locale, and every process
// starts with the language of its environment (RX_BRIDGE_LANG, then
// LC_ALL, LC_MESSAGES, LANG, as POSIX orders them).
package locale

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// Lang is a language the bridge speaks.
type Lang string

// The languages of the catalogue.
const (
	// English is the source language: every text is written in it.
	English Lang = "en"
	// SimplifiedChinese is zh-CN (also chosen for zh-Hans and zh-SG).
	SimplifiedChinese Lang = "zh-CN"
)

// Parse maps a locale tag as editors and environments write it ("zh-cn",
// "zh_CN.UTF-8", "zh-Hans-CN", "en-US", "C") to a Lang; ok is false when
// the tag names no language (empty, "C", "POSIX"). Chinese other than
// Simplified (zh-TW, zh-HK, zh-Hant) is English: there is no Traditional
// catalogue, and Simplified is not what those users read.
func Parse(tag string) (l Lang, ok bool) {
	t := strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(t, ".@"); i >= 0 {
		t = t[:i] // zh_CN.UTF-8, zh_CN@pinyin
	}
	t = strings.ReplaceAll(t, "_", "-")
	switch {
	case t == "" || t == "c" || t == "posix":
		return English, false
	case t == "zh" || strings.HasPrefix(t, "zh-"):
		if strings.Contains(t, "hant") || strings.HasSuffix(t, "-tw") || strings.HasSuffix(t, "-hk") || strings.HasSuffix(t, "-mo") {
			return English, true
		}
		return SimplifiedChinese, true
	}
	return English, true
}

// FromEnv is the language an environment asks for: RX_BRIDGE_LANG first
// (the bridge's own switch), then LC_ALL, LC_MESSAGES and LANG; English
// when none names a language.
func FromEnv(getenv func(string) string) Lang {
	for _, k := range []string{"RX_BRIDGE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"} {
		if l, ok := Parse(getenv(k)); ok {
			return l
		}
	}
	return English
}

var current atomic.Value // Lang

// init takes the language from the environment. A test binary takes it
// from RX_BRIDGE_LANG only: the tests compare English texts, and a
// developer's zh_CN LANG must not change what they see (a test that wants
// Chinese sets RX_BRIDGE_LANG, or calls Set).
func init() {
	getenv := os.Getenv
	if testing.Testing() {
		getenv = func(k string) string {
			if k == "RX_BRIDGE_LANG" {
				return os.Getenv(k)
			}
			return ""
		}
	}
	current.Store(FromEnv(getenv))
}

// Current is the process's language.
func Current() Lang { return current.Load().(Lang) }

// Set makes l the process's language (serve calls it with the client's
// locale); an unknown Lang is English.
func Set(l Lang) {
	if l != SimplifiedChinese {
		l = English
	}
	current.Store(l)
}

// T is the text msg (an English fmt format, the catalogue's key) in the
// process's language, formatted with args when there are any. A msg the
// catalogue lacks is shown in English.
func T(msg string, args ...any) string { return Current().T(msg, args...) }

// T is msg in language l; see the package function T.
func (l Lang) T(msg string, args ...any) string {
	if l == SimplifiedChinese {
		if z, ok := zhCN[msg]; ok {
			msg = z
		}
	}
	if len(args) == 0 {
		return msg
	}
	return fmt.Sprintf(msg, args...)
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// keyJSON is one provider's key in `setup --list-keys --json`: where
// config.toml says it is, and whether it is a file setup stored in the
// home (which --remove-key deletes). The key itself is never read.
type keyJSON struct {
	Provider string `json:"provider"`
	// KeyFile is the key file (absolute), KeyEnv the variable; both
	// empty for a provider without a key.
	KeyFile string `json:"keyFile,omitempty"`
	KeyEnv  string `json:"keyEnv,omitempty"`
	// Stored: KeyFile is <home>/keys/<provider>.key, written by setup.
	Stored bool `json:"stored"`
	// Configured is false for a key file in <home>/keys/ that no
	// provider of config.toml names (a leftover).
	Configured bool `json:"configured"`
}

// removeKeyJSON is `setup --remove-key --json`'s output.
type removeKeyJSON struct {
	Provider string `json:"provider"`
	// Config is config.toml when the key's setting was taken out of it.
	Config string `json:"config,omitempty"`
	// Removed are the settings taken out (api_key_file, api_key_env,
	// api_key_header).
	Removed []string `json:"removed"`
	// Deleted is the key file deleted; Kept a key file config.toml named
	// that setup did not store, so it is left where it is.
	Deleted string `json:"deleted,omitempty"`
	Kept    string `json:"kept,omitempty"`
	// KeyEnv is the variable config.toml no longer reads.
	KeyEnv string `json:"keyEnv,omitempty"`
}

// storedKeyPath is where setup stores provider name's key.
func (c *setupCmd) storedKeyPath(name string) string {
	return filepath.Join(c.home, keysDir, name+".key")
}

// configKeys is the key settings of config.toml's providers, in order.
func (c *setupCmd) configKeys(old []byte) ([]keyJSON, error) {
	m, err := decodeTOML(old)
	if err != nil {
		return nil, fmt.Errorf("%s does not parse (%v); fix it first", c.configPath(), err)
	}
	entries, ok := providerEntries(m)
	if !ok {
		return nil, fmt.Errorf("%s declares [[providers.openai]] in a form setup does not read", c.configPath())
	}
	var out []keyJSON
	for _, e := range entries {
		name, _ := e["name"].(string)
		k := keyJSON{Provider: name, Configured: true}
		k.KeyEnv, _ = e["api_key_env"].(string)
		if f, _ := e["api_key_file"].(string); f != "" {
			if !filepath.IsAbs(f) {
				f = filepath.Join(c.home, filepath.FromSlash(f))
			}
			k.KeyFile = filepath.Clean(f)
			k.Stored = k.KeyFile == c.storedKeyPath(name)
		}
		out = append(out, k)
	}
	return out, nil
}

// listKeys is `rx-bridge setup --list-keys`: each provider of config.toml
// with where its key is, then the key files of <home>/keys/ no provider
// names. No key is read.
func (c *setupCmd) listKeys() error {
	old, err := os.ReadFile(c.configPath())
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %v", c.configPath(), pathErrText(err))
	}
	keys, err := c.configKeys(old)
	if err != nil {
		return err
	}
	named := map[string]bool{}
	for _, k := range keys {
		named[k.KeyFile] = true
	}
	files, _ := filepath.Glob(filepath.Join(c.home, keysDir, "*.key"))
	sort.Strings(files)
	for _, f := range files {
		if !named[f] {
			keys = append(keys, keyJSON{Provider: strings.TrimSuffix(filepath.Base(f), ".key"), KeyFile: f, Stored: true})
		}
	}
	if c.opts.asJSON {
		if keys == nil {
			keys = []keyJSON{}
		}
		return json.NewEncoder(c.stdout).Encode(map[string]any{"config": c.configPath(), "keys": keys})
	}
	if len(keys) == 0 {
		fmt.Fprintln(c.stdout, locale.T("%s has no providers, and %s holds no key files.", c.configPath(), filepath.Join(c.home, keysDir)))
		return nil
	}
	rows := [][]string{{locale.T("PROVIDER"), locale.T("KEY")}}
	for _, k := range keys {
		var where string
		switch {
		case !k.Configured:
			where = locale.T("key file %s (no provider of config.toml uses it)", k.KeyFile)
		case k.Stored:
			where = locale.T("key file %s (stored by setup)", k.KeyFile)
		case k.KeyFile != "":
			where = locale.T("key file %s (yours; setup leaves it alone)", k.KeyFile)
		case k.KeyEnv != "":
			where = locale.T("environment variable %s", k.KeyEnv)
		default:
			where = locale.T("no key")
		}
		rows = append(rows, []string{k.Provider, where})
	}
	return writeTable(c.stdout, rows)
}

// removeKey is `rx-bridge setup --remove-key NAME`: provider name's key
// setting (api_key_file or api_key_env, and api_key_header, which needs
// one) comes out of config.toml, and the key file setup stored for it
// in <home>/keys/ is deleted. A key file the user gave with
// --api-key-file is left where it is, and a variable is not unset: the
// output says so. A key file of a provider config.toml no longer has is
// deleted too. It is an error, naming the provider, when there is no key
// to remove.
func (c *setupCmd) removeKey(name string) error {
	path := c.configPath()
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %v", path, pathErrText(err))
	}
	keys, err := c.configKeys(old)
	if err != nil {
		return err
	}
	var k *keyJSON
	for i := range keys {
		if keys[i].Provider == name {
			k = &keys[i]
		}
	}
	stored := c.storedKeyPath(name)
	_, statErr := os.Stat(stored)
	storedExists := statErr == nil
	out := removeKeyJSON{Provider: name, Removed: []string{}}
	switch {
	case k == nil && !storedExists:
		return fmt.Errorf("no provider named %q in %s, and no key file %s: there is no key to remove", name, path, stored)
	case k != nil && k.KeyFile == "" && k.KeyEnv == "" && !storedExists:
		return fmt.Errorf("provider %q in %s has no key (no api_key_file or api_key_env), and there is no key file %s", name, path, stored)
	}
	if k != nil && (k.KeyFile != "" || k.KeyEnv != "") {
		if _, _, err := dropKeySettings(old, name); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		err := manifest.UpdateHomeFile(c.home, path, configMode(path), func(cur []byte) ([]byte, error) {
			b, removed, err := dropKeySettings(cur, name)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			out.Removed = removed
			return b, nil
		})
		if err != nil {
			return err
		}
		out.Config = path
		out.KeyEnv = k.KeyEnv
		if k.KeyFile != "" && !k.Stored {
			out.Kept = k.KeyFile
		}
	}
	if storedExists {
		if err := os.Remove(stored); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("delete %s: %v", stored, pathErrText(err))
		}
		out.Deleted = stored
	}
	if c.opts.asJSON {
		return json.NewEncoder(c.stdout).Encode(out)
	}
	w := c.stdout
	if out.Deleted != "" {
		fmt.Fprintln(w, locale.T("Deleted the key file %s.", out.Deleted))
	}
	if out.Config != "" {
		fmt.Fprintln(w, locale.T("Removed %s from provider %q in %s; it now has no key.", strings.Join(out.Removed, ", "), name, out.Config))
	}
	if out.Kept != "" {
		fmt.Fprintln(w, locale.T("The key file %s is yours (setup did not store it), so it is left where it is.", out.Kept))
	}
	if out.KeyEnv != "" {
		fmt.Fprintln(w, locale.T("The environment variable %s is not changed; unset it where rx-bridge runs if the key should go.", out.KeyEnv))
	}
	if out.Config != "" {
		fmt.Fprintln(w, locale.T("Running sessions pick up the change on their next reload."))
	}
	return nil
}

// keySetting matches a provider table's key line.
var keySetting = regexp.MustCompile(`^\s*(?:"|')?(api_key_file|api_key_env|api_key_header)(?:"|')?\s*=`)

// dropKeySettings returns config.toml's text old without the key lines
// (api_key_file, api_key_env, api_key_header) of the [[providers.openai]]
// table named name, and which were removed. Like editConfig it edits the
// text and checks its work: the result, decoded, must equal old decoded
// with exactly those settings gone.
func dropKeySettings(old []byte, name string) ([]byte, []string, error) {
	before, err := decodeTOML(old)
	if err != nil {
		return nil, nil, fmt.Errorf("config.toml does not parse (%v); fix it first", err)
	}
	entries, _ := providerEntries(before)
	n := -1
	for i, e := range entries {
		if e["name"] == name {
			n = i
		}
	}
	if n < 0 {
		return nil, nil, fmt.Errorf("no provider named %q", name)
	}
	lines := splitLines(string(old))
	seen, in := -1, false
	var kept []string
	var removed []string
	for _, l := range lines {
		if key, array, ok := tableKey(l); ok {
			in = false
			if key == "providers.openai" && array {
				seen++
				in = seen == n
			}
		}
		if in {
			if m := keySetting.FindStringSubmatch(l); m != nil {
				removed = append(removed, m[1])
				continue
			}
		}
		kept = append(kept, l)
	}
	text := strings.Join(kept, "")
	after, err := decodeTOML([]byte(text))
	want, _ := decodeTOML(old)
	if err == nil {
		e, _ := providerEntries(want)
		for _, k := range []string{"api_key_file", "api_key_env", "api_key_header"} {
			delete(e[n], k)
		}
	}
	if err != nil || len(removed) == 0 || !reflect.DeepEqual(after, want) {
		return nil, nil, errors.New("config.toml is laid out so that setup cannot take the key out without changing other settings; remove api_key_file or api_key_env from the provider " + fmt.Sprintf("%q", name) + " by hand")
	}
	return []byte(text), removed, nil
}

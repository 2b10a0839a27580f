package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/providers/openai"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// providerPreset is a server setup knows by name.
type providerPreset struct {
	Flag    string // the --provider value
	Label   string
	BaseURL string
	KeyEnv  string // where its users usually keep the key ("" for local servers)
}

var (
	cloudPresets = []providerPreset{
		{Flag: "deepseek", Label: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", KeyEnv: "DEEPSEEK_API_KEY"},
		{Flag: "openai", Label: "OpenAI", BaseURL: "https://api.openai.com/v1", KeyEnv: "OPENAI_API_KEY"},
		{Flag: "openrouter", Label: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY"},
	}
	// localPresets are probed on their default ports; the interactive
	// list shows those that answer.
	localPresets = []providerPreset{
		{Flag: "ollama", Label: "Ollama", BaseURL: "http://127.0.0.1:11434/v1"},
		{Flag: "llamacpp", Label: "llama.cpp", BaseURL: "http://127.0.0.1:8080/v1"},
		{Flag: "vllm", Label: "vLLM", BaseURL: "http://127.0.0.1:8000/v1"},
	}
)

// customProvider is the --provider value for any other server.
const customProvider = "openai-compatible"

// keysDir is the home folder of the key files setup writes.
const keysDir = "keys"

// fetchTimeout bounds reading a server's model list.
const fetchTimeout = 30 * time.Second

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// providerName is what a provider's name may be (and a key file's name).
var providerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// setupOpts are setup's flags.
type setupOpts struct {
	provider, baseURL, name, model, home string
	keyEnv, keyFile                      string
	keyStdin, listOnly, asJSON, replace  bool
	interactive                          bool
	listKeys                             bool
	removeKey                            string
}

// setupCmd is one run of `rx-bridge setup`.
type setupCmd struct {
	opts           setupOpts
	stdout, stderr io.Writer
	prompt         io.Writer // where questions go: stdout, or stderr with --json
	stdin          *os.File
	in             *bufio.Reader
	getenv         func(string) string
	home           string
	client         *http.Client
}

// setupKey is where the key comes from and what config.toml says about it.
type setupKey struct {
	env   string // api_key_env
	file  string // api_key_file given by the user (absolute)
	store string // a key to store in <home>/keys/<name>.key
	value string // the key to use now ("" for none)
}

// setupResult is `setup --json`'s output.
type setupResult struct {
	Provider string           `json:"provider"`
	BaseURL  string           `json:"baseUrl"`
	Models   []setupModelJSON `json:"models"`
	Model    string           `json:"model,omitempty"`
	Config   string           `json:"config,omitempty"`
	KeyFile  string           `json:"keyFile,omitempty"`
	KeyEnv   string           `json:"keyEnv,omitempty"`
}

type setupModelJSON struct {
	ID            string `json:"id"`
	Ref           string `json:"ref"`
	ContextWindow int    `json:"contextWindow,omitempty"`
}

// runSetup is `rx-bridge setup`: a provider and the default model into
// config.toml, asked on the terminal or given as flags.
func runSetup(args []string, stdin *os.File, stdout, stderr io.Writer, getenv func(string) string) int {
	c := &setupCmd{stdout: stdout, stderr: stderr, prompt: stdout, stdin: stdin, in: bufio.NewReader(stdin), getenv: getenv}
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &c.opts
	fs.StringVar(&o.provider, "provider", "", "`kind`: deepseek, openai, openrouter, ollama, llamacpp, vllm or "+customProvider+" (with --base-url)")
	fs.StringVar(&o.baseURL, "base-url", "", "the server's API root, before /chat/completions (e.g. http://127.0.0.1:8080/v1)")
	fs.StringVar(&o.name, "name", "", "provider `name`, the first segment of its refs (default: the kind's, or \"local\")")
	fs.StringVar(&o.model, "model", "", "the server's model `id` to make the default (needed when it lists several)")
	fs.StringVar(&o.keyEnv, "api-key-env", "", "config.toml reads the key from this environment `variable`")
	fs.StringVar(&o.keyFile, "api-key-file", "", "config.toml reads the key from this `file`")
	fs.BoolVar(&o.keyStdin, "api-key-stdin", false, "read the key from stdin and store it in <home>/keys/<name>.key (mode 0600)")
	fs.BoolVar(&o.listOnly, "list-models", false, "only list the server's models; change nothing")
	fs.BoolVar(&o.replace, "replace", false, "replace config.toml's provider of the same name")
	fs.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	fs.BoolVar(&o.interactive, "interactive", false, "ask on stdin even when it is not a terminal")
	fs.BoolVar(&o.listKeys, "list-keys", false, "list config.toml's providers and where each one's key is (never the key)")
	fs.StringVar(&o.removeKey, "remove-key", "", "remove provider `name`'s key: its setting in config.toml and the key file setup stored")
	fs.StringVar(&o.home, "home", "", "the bridge home `dir` (default: $RX_BRIDGE_HOME, else the system's)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: rx-bridge setup                 (asks on the terminal)\n"+
			"       rx-bridge setup --provider KIND [--base-url URL] [--api-key-env NAME | --api-key-file PATH | --api-key-stdin]\n"+
			"                       [--model ID] [--name NAME] [--replace] [--list-models] [--json]\n"+
			"       rx-bridge setup --list-keys [--json]\n"+
			"       rx-bridge setup --remove-key NAME [--json]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "rx-bridge setup: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if msg := c.checkFlags(); msg != "" {
		fmt.Fprintf(stderr, "rx-bridge setup: %s\n", msg)
		return exitUsage
	}
	if o.asJSON {
		c.prompt = stderr
	}
	if err := c.run(); err != nil {
		c.fail(err)
		return 1
	}
	return 0
}

// checkFlags returns a usage error, or "".
func (c *setupCmd) checkFlags() string {
	o := c.opts
	n := 0
	for _, set := range []bool{o.keyEnv != "", o.keyFile != "", o.keyStdin} {
		if set {
			n++
		}
	}
	keys := o.listKeys || o.removeKey != ""
	switch {
	case o.listKeys && o.removeKey != "":
		return "--list-keys and --remove-key exclude each other"
	case keys && (n > 0 || o.provider != "" || o.baseURL != "" || o.name != "" || o.model != "" || o.listOnly || o.replace || o.interactive):
		return "--list-keys and --remove-key take only --json and --home"
	case o.removeKey != "" && !providerName.MatchString(o.removeKey):
		return fmt.Sprintf("--remove-key %q: a provider name is letters, digits, . _ - (see rx-bridge setup --list-keys)", o.removeKey)
	case n > 1:
		return "--api-key-env, --api-key-file and --api-key-stdin exclude each other"
	case o.keyEnv != "" && !envName.MatchString(o.keyEnv):
		return "--api-key-env takes the NAME of an environment variable, not the key"
	case o.provider == customProvider && o.baseURL == "":
		return "--provider " + customProvider + " needs --base-url"
	case o.provider != "" && o.provider != customProvider && presetByFlag(o.provider) == nil:
		return fmt.Sprintf("unknown --provider %q (want deepseek, openai, openrouter, ollama, llamacpp, vllm or %s)", o.provider, customProvider)
	case o.interactive && (o.provider != "" || o.baseURL != ""):
		return "--interactive asks for the provider; give it either way, not both"
	case o.keyStdin && (o.interactive || o.provider == "" && o.baseURL == ""):
		return "--api-key-stdin is for the non-interactive form (--provider or --base-url)"
	}
	return ""
}

func presetByFlag(flag string) *providerPreset {
	if flag == "llama.cpp" {
		flag = "llamacpp"
	}
	for _, p := range append(append([]providerPreset(nil), cloudPresets...), localPresets...) {
		if p.Flag == flag {
			return &p
		}
	}
	return nil
}

// fail reports err: one line on stderr (and {"error"} with --json).
func (c *setupCmd) fail(err error) {
	msg := redact.String(err.Error())
	fmt.Fprintf(c.stderr, "rx-bridge setup: %s\n", msg)
	if c.opts.asJSON {
		_ = json.NewEncoder(c.stdout).Encode(map[string]string{"error": msg})
	}
}

func (c *setupCmd) run() error {
	home := c.opts.home
	if home == "" {
		var err error
		if home, err = manifest.ResolveHome(c.getenv); err != nil {
			return err
		}
	}
	home, err := filepath.Abs(home)
	if err != nil {
		return err
	}
	c.home = home
	c.client = &http.Client{Timeout: fetchTimeout}
	defer c.client.CloseIdleConnections()

	switch {
	case c.opts.listKeys:
		return c.listKeys()
	case c.opts.removeKey != "":
		return c.removeKey(c.opts.removeKey)
	}
	if c.opts.provider != "" || c.opts.baseURL != "" {
		return c.flags()
	}
	if !c.opts.interactive && !isTerminal(c.stdin) {
		return errors.New("stdin is not a terminal: run it in one, or pass --provider (rx-bridge setup -h), or --interactive to answer on stdin")
	}
	return c.ask()
}

// configPath is the home's config.toml.
func (c *setupCmd) configPath() string { return filepath.Join(c.home, manifest.ConfigFile) }

// flags is the non-interactive setup.
func (c *setupCmd) flags() error {
	o := c.opts
	preset := presetByFlag(o.provider)
	base := o.baseURL
	if base == "" {
		base = preset.BaseURL
	}
	base = strings.TrimRight(base, "/")
	name := o.name
	if name == "" {
		name = defaultName(preset, base)
	}
	var key setupKey
	switch {
	case o.keyEnv != "":
		key.env = o.keyEnv
		key.value = strings.TrimSpace(c.getenv(o.keyEnv))
		if key.value == "" {
			fmt.Fprintf(c.stderr, "rx-bridge setup: warning: %s is not set here; asking the server without a key\n", o.keyEnv)
		}
	case o.keyFile != "":
		abs, err := filepath.Abs(o.keyFile)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(abs)
		if err != nil {
			return fmt.Errorf("key file %s cannot be read: %v", abs, pathErrText(err))
		}
		if key.value = strings.TrimSpace(string(b)); key.value == "" {
			return fmt.Errorf("key file %s is empty", abs)
		}
		key.file = abs
	case o.keyStdin:
		b, err := io.ReadAll(io.LimitReader(c.in, 64<<10))
		if err != nil {
			return fmt.Errorf("read the key from stdin: %v", err)
		}
		if key.value = strings.TrimSpace(string(b)); key.value == "" {
			return errors.New("--api-key-stdin: stdin holds no key")
		}
		key.store = key.value
	case preset != nil && preset.KeyEnv != "" && strings.TrimSpace(c.getenv(preset.KeyEnv)) != "":
		key.env = preset.KeyEnv
		key.value = strings.TrimSpace(c.getenv(preset.KeyEnv))
	}
	redact.AddSecrets(key.value)
	if err := c.validate(name, base, key); err != nil {
		return err
	}
	models, err := c.fetch(base, key.value)
	if err != nil {
		return err
	}
	if o.listOnly {
		return c.report(name, base, models, nil, key)
	}
	var chosen serverModel
	switch {
	case o.model != "":
		found := false
		for _, m := range models {
			if m.ID == o.model {
				chosen, found = m, true
			}
		}
		if !found {
			return fmt.Errorf("%s does not list model %q; it lists %s", modelsURL(base), o.model, idList(models))
		}
	case len(models) == 1:
		chosen = models[0]
	default:
		return fmt.Errorf("%s lists %d models; choose the default with --model (%s)", modelsURL(base), len(models), idList(models))
	}
	block, err := c.write(name, base, key, chosen, o.replace)
	if err != nil {
		return err
	}
	return c.report(name, base, models, &block, key)
}

// idList names up to 10 model ids.
func idList(models []serverModel) string {
	var ids []string
	for i, m := range models {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(models)-10))
			break
		}
		ids = append(ids, m.ID)
	}
	return strings.Join(ids, ", ")
}

// defaultName is the provider name setup proposes: the preset's, else
// "local" for a server on this machine, else the host's first label.
func defaultName(p *providerPreset, base string) string {
	if p != nil {
		return p.Flag
	}
	u, err := url.Parse(base)
	if err != nil {
		return "custom"
	}
	host := u.Hostname()
	if host == "localhost" {
		return "local"
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return "local"
		}
		return "custom"
	}
	label, _, _ := strings.Cut(host, ".")
	if label == "api" || label == "www" {
		if parts := strings.Split(host, "."); len(parts) > 1 {
			label = parts[1]
		}
	}
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`).MatchString(label) {
		return "custom"
	}
	return strings.ToLower(label)
}

// validate checks name and base as config.toml would.
func (c *setupCmd) validate(name, base string, key setupKey) error {
	cfg := openai.Config{Name: name, BaseURL: base, APIKeyEnv: key.env, APIKeyFile: key.file, Models: []openai.ModelConfig{{ID: "m"}}}
	if key.store != "" {
		cfg.APIKeyFile = filepath.Join(c.home, keysDir, name+".key")
	}
	if err := cfg.Validate(); err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

func (c *setupCmd) fetch(base, key string) ([]serverModel, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	models, err := fetchModels(ctx, c.client, base, key)
	if err != nil && key != "" && len(key) >= 4 {
		err = errors.New(strings.ReplaceAll(err.Error(), key, "[redacted]"))
	}
	return models, err
}

// write stores the key (when typed) and edits config.toml.
func (c *setupCmd) write(name, base string, key setupKey, m serverModel, replace bool) (providerBlock, error) {
	block := providerBlock{Name: name, BaseURL: base, KeyEnv: key.env, KeyFile: key.file, Model: m}
	if seg, renamed := refSegment(m.ID); renamed {
		block.RefName = seg
	}
	if key.store != "" {
		block.KeyFile = keysDir + "/" + name + ".key"
	}
	path := c.configPath()
	// The edit is checked before the key is stored, so a refused edit
	// leaves nothing behind; it is made again under the lock.
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return block, fmt.Errorf("read %s: %v", path, pathErrText(err))
	}
	if _, err := editConfig(old, block, replace); err != nil {
		return block, c.editError(err, name)
	}
	if key.store != "" {
		keyPath := filepath.Join(c.home, keysDir, name+".key")
		err := manifest.UpdateHomeFile(c.home, keyPath, 0o600, func([]byte) ([]byte, error) {
			return []byte(key.store + "\n"), nil
		})
		if err != nil {
			return block, err
		}
	}
	err = manifest.UpdateHomeFile(c.home, path, configMode(path), func(old []byte) ([]byte, error) {
		b, err := editConfig(old, block, replace)
		if err != nil {
			return nil, c.editError(err, name)
		}
		return b, nil
	})
	return block, err
}

func (c *setupCmd) editError(err error, name string) error {
	if errors.Is(err, errProviderExists) {
		return fmt.Errorf("%s already has a [[providers.openai]] named %q; pass --replace to replace it, or --name to add another", c.configPath(), name)
	}
	return fmt.Errorf("%s: %v", c.configPath(), err)
}

// configMode keeps config.toml's mode (0644 for a new file).
func configMode(path string) os.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

func pathErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// report prints what setup found and did.
func (c *setupCmd) report(name, base string, models []serverModel, block *providerBlock, key setupKey) error {
	res := setupResult{Provider: name, BaseURL: base, KeyEnv: key.env, KeyFile: key.file}
	for _, m := range models {
		seg, _ := refSegment(m.ID)
		res.Models = append(res.Models, setupModelJSON{ID: m.ID, Ref: name + "/" + seg, ContextWindow: m.ContextWindow})
	}
	if block != nil {
		res.Model = block.ref()
		res.Config = c.configPath()
		if key.store != "" {
			res.KeyFile = filepath.Join(c.home, keysDir, name+".key")
		}
	}
	if c.opts.asJSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if block == nil {
		return c.printModels(models)
	}
	fmt.Fprintln(c.stdout, locale.T("Configured provider %q (%s) in %s.", name, base, res.Config))
	fmt.Fprintln(c.stdout, locale.T("Default model: %s", res.Model))
	switch {
	case key.store != "":
		fmt.Fprintln(c.stdout, locale.T("The key is in %s (only you can read it).", res.KeyFile))
	case key.file != "":
		fmt.Fprintln(c.stdout, locale.T("The key is read from %s.", key.file))
	case key.env != "":
		fmt.Fprintln(c.stdout, locale.T("The key is read from the environment variable %s; set it where rx-bridge runs (your editor too).", key.env))
	}
	fmt.Fprintln(c.stdout, locale.T("Try it: rx-bridge chat"))
	return nil
}

func (c *setupCmd) printModels(models []serverModel) error {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tCONTEXT")
	for _, m := range models {
		fmt.Fprintf(tw, "%s\t%s\n", m.ID, contextWindow(m.ContextWindow))
	}
	return tw.Flush()
}

// ask is the interactive setup.
func (c *setupCmd) ask() error {
	p := c.prompt
	fmt.Fprint(p, locale.T("Set up a model provider and the default model in %s.", c.configPath())+"\n\n")
	ctx, cancel := context.WithTimeout(context.Background(), 2*probeTimeout)
	found := probeLocal(ctx, localPresets)
	cancel()
	choices := append(append([]providerPreset(nil), cloudPresets...), found...)
	fmt.Fprintln(p, locale.T("Providers:"))
	tw := tabwriter.NewWriter(p, 0, 4, 2, ' ', 0)
	for i, ch := range choices {
		note := ""
		if ch.KeyEnv == "" {
			note = "\t" + locale.T("(running here)")
		}
		fmt.Fprintf(tw, "  %d)\t%s\t%s%s\n", i+1, ch.Label, ch.BaseURL, note)
	}
	fmt.Fprintf(tw, "  %d)\t%s\n", len(choices)+1, locale.T("another OpenAI-compatible server\t(you type its URL)"))
	_ = tw.Flush()

	var preset *providerPreset
	var base string
	for base == "" {
		ans, err := c.line(locale.T("Provider [1-%d, or the server's URL]: ", len(choices)+1))
		if err != nil {
			return err
		}
		if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(choices)+1 {
			if n <= len(choices) {
				preset = &choices[n-1]
				base = preset.BaseURL
				break
			}
			if ans, err = c.line(locale.T("Base URL (up to /v1, e.g. http://127.0.0.1:1234/v1): ")); err != nil {
				return err
			}
		}
		if u, err := url.Parse(ans); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			base = strings.TrimRight(ans, "/")
		} else {
			fmt.Fprintln(p, locale.T("Type a number from the list, or a URL such as http://127.0.0.1:1234/v1."))
		}
	}

	// The name, and whether an existing table of that name goes.
	old, _ := os.ReadFile(c.configPath())
	taken := configuredProviders(old)
	name, replace := defaultName(preset, base), false
	for taken[name] && !replace {
		ans, err := c.line(locale.T("%s already has a provider named %q. Replace it? [y/N] ", manifest.ConfigFile, name))
		if err != nil {
			return err
		}
		if yes(ans) {
			replace = true
			break
		}
		if name, err = c.line(locale.T("Name for this provider (letters, digits, . _ -): ")); err != nil {
			return err
		}
	}

	key, err := c.askKey(preset, name)
	if err != nil {
		return err
	}
	redact.AddSecrets(key.value)
	if err := c.validate(name, base, key); err != nil {
		return err
	}
	fmt.Fprintln(p, locale.T("Reading the models of %s ...", base))
	models, err := c.fetch(base, key.value)
	if err != nil {
		return err
	}
	fmt.Fprintln(p, locale.T("Models:"))
	tw = tabwriter.NewWriter(p, 0, 4, 2, ' ', 0)
	for i, m := range models {
		cw := ""
		if m.ContextWindow > 0 {
			cw = "\t" + locale.T("context %d", m.ContextWindow)
		}
		fmt.Fprintf(tw, "  %d)\t%s%s\n", i+1, m.ID, cw)
	}
	_ = tw.Flush()
	var chosen *serverModel
	for chosen == nil {
		ans, err := c.line(locale.T("Default model [1-%d, or its id; Enter for 1]: ", len(models)))
		if err != nil {
			return err
		}
		if ans == "" {
			ans = "1"
		}
		if n, err := strconv.Atoi(ans); err == nil && n >= 1 && n <= len(models) {
			chosen = &models[n-1]
			break
		}
		for i := range models {
			if models[i].ID == ans {
				chosen = &models[i]
			}
		}
		if chosen == nil {
			fmt.Fprintln(p, locale.T("Type a number from the list or a model id."))
		}
	}
	block, err := c.write(name, base, key, *chosen, replace)
	if err != nil {
		return err
	}
	fmt.Fprintln(p)
	return c.report(name, base, models, &block, key)
}

// askKey asks for the key: an environment variable the preset usually
// uses (when set), typed (hidden on a terminal) to be stored in a key
// file, $NAME for an environment variable, or none.
func (c *setupCmd) askKey(preset *providerPreset, name string) (setupKey, error) {
	if preset != nil && preset.KeyEnv != "" {
		if v := strings.TrimSpace(c.getenv(preset.KeyEnv)); v != "" {
			ans, err := c.line(locale.T("Use the key in $%s? [Y/n] ", preset.KeyEnv))
			if err != nil {
				return setupKey{}, err
			}
			if ans == "" || yes(ans) {
				return setupKey{env: preset.KeyEnv, value: v}, nil
			}
		}
	}
	for {
		ans, err := c.secret(locale.T("API key (stored in %s, readable only by you; $NAME reads it from that environment variable instead; Enter for none)", filepath.Join(c.home, keysDir, name+".key")))
		if err != nil {
			return setupKey{}, err
		}
		switch {
		case ans == "":
			return setupKey{}, nil
		case strings.HasPrefix(ans, "$"):
			env := ans[1:]
			if !envName.MatchString(env) {
				fmt.Fprintln(c.prompt, locale.T("After $ comes the name of an environment variable, such as $DEEPSEEK_API_KEY."))
				continue
			}
			v := strings.TrimSpace(c.getenv(env))
			if v == "" {
				fmt.Fprintln(c.prompt, locale.T("%s is not set here; the models are read without a key.", env))
			}
			return setupKey{env: env, value: v}, nil
		}
		return setupKey{store: ans, value: ans}, nil
	}
}

// line asks a question and reads one answer line, trimmed.
func (c *setupCmd) line(question string) (string, error) {
	fmt.Fprint(c.prompt, question)
	s, err := c.in.ReadString('\n')
	if err != nil && (err != io.EOF || s == "") {
		if err == io.EOF {
			fmt.Fprintln(c.prompt)
			return "", errors.New(locale.T("no answer (end of input); nothing was changed"))
		}
		return "", err
	}
	return strings.TrimSpace(s), nil
}

// secret asks for a key: with the terminal's echo off when stdin is one
// else as a plain line that is never written back.
func (c *setupCmd) secret(question string) (string, error) {
	restore, hidden := echoOff(c.stdin)
	if !hidden {
		return c.line(question + locale.T(" (typing is shown): "))
	}
	// Ctrl-C while the echo is off must not leave the terminal silent.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			restore()
			fmt.Fprintln(c.prompt)
			os.Exit(130)
		case <-done:
		}
	}()
	s, err := c.line(question + locale.T(" (typing is hidden): "))
	signal.Stop(sig)
	close(done)
	restore()
	fmt.Fprintln(c.prompt) // the Enter the terminal did not echo
	return s, err
}

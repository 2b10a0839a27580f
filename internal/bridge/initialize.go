package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// initialize answers the LSP initialize request: it records what the
// editor can do, picks the workspace, loads the home, and sets up the UI
// hub, the plugin runtime and agent sessions. Plugins start only after
// initialized.
func (s *Server) initialize(ctx context.Context, raw []byte) (any, error) {
	var p protocol.InitializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s.client = parseClientCaps(p.Capabilities)
	s.applyTrace(p.Trace)
	var roots struct {
		legacyRoots
		WorkspaceFolders []struct {
			URI string `json:"uri"`
		} `json:"workspaceFolders"`
		// Locale is the editor's UI language (LSP 3.16): the bridge's
		// own texts follow it; without it, the environment's.
		Locale string `json:"locale"`
	}
	_ = json.Unmarshal(raw, &roots)
	if l, ok := locale.Parse(roots.Locale); ok {
		locale.Set(l)
	}
	var folders []string
	for _, f := range roots.WorkspaceFolders {
		folders = append(folders, f.URI)
	}
	ws, err := workspaceRoot(s.opts.Workspace, folders, roots.legacyRoots)
	if err != nil {
		return nil, err
	}
	s.workspace = ws
	s.folders = localFolders(folders)
	home, err := manifest.LoadHome(s.opts.Home)
	if err != nil {
		return nil, fmt.Errorf("loading the bridge home: %w", err)
	}
	s.home = home
	for _, w := range home.Warnings {
		s.log.Warn(w)
	}
	s.session = newSessionID()
	if err := s.openEngine(); err != nil {
		return nil, err
	}
	return s.initializeResult()
}

// legacyRoots are the workspace members LSP deprecated in favour of
// workspaceFolders, which clients still send. The root URIs are read as
// the editor sent them, not as go.lsp.dev/uri rewrites them (see
// textDocument).
type legacyRoots struct {
	RootURI  string `json:"rootUri"`
	RootPath string `json:"rootPath"`
}

// workspaceRoot is --workspace, else the first workspace folder, else
// rootUri, else rootPath, else the current directory. A folder or root
// URI that is not a file: URI (vscode-remote://…, vscode-vfs://…,
// untitled:) is returned as it is: a workspace without local files, whose
// sessions work but whose file tools say so.
func workspaceRoot(flag string, folders []string, roots legacyRoots) (string, error) {
	dir := flag
	if dir == "" {
		u, what := roots.RootURI, "rootUri"
		if len(folders) > 0 && folders[0] != "" {
			u, what = folders[0], "workspace folder"
		}
		if u != "" {
			path, isFile, err := localPath(u)
			switch {
			case err != nil:
				return "", invalidParams("%s: %v", what, err)
			case isFile:
				dir = path
			case tools.IsURI(u):
				return u, nil
			default:
				return "", invalidParams("%s %q is not a URI", what, u)
			}
		}
	}
	if dir == "" {
		dir = roots.RootPath
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", invalidParams("workspace %s is not a directory", abs)
	}
	return abs, nil
}

// localFolders are the workspace folders that are local directories, in
// the editor's order: the workspace's roots (docs/ARCHITECTURE.md
// "Multi-root workspaces"). A folder that is not a file: URI, or not a
// directory, is left out.
func localFolders(uris []string) []string {
	var out []string
	for _, u := range uris {
		if p, ok := localFolder(u); ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// localFolder is the local directory a workspace folder's URI names.
func localFolder(u string) (string, bool) {
	p, isFile, err := localPath(u)
	if err != nil || !isFile {
		return "", false
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return "", false
	}
	return p, true
}

// didChangeWorkspaceFolders applies the editor's added and removed
// workspace folders: every open session has the new roots from its next
// turn, and a session started later has them from the start. The
// primary root (the workspace the sidecars were told of) stays, even
// when the editor removes its folder.
func (s *Server) didChangeWorkspaceFolders(params []byte) {
	var p struct {
		Event struct {
			Added, Removed []struct {
				URI string `json:"uri"`
			}
		} `json:"event"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.Warn("workspace/didChangeWorkspaceFolders: invalid params: " + err.Error())
		return
	}
	s.foldersMu.Lock()
	defer s.foldersMu.Unlock()
	for _, f := range p.Event.Removed {
		if path, isFile, err := localPath(f.URI); err == nil && isFile {
			s.folders = slices.DeleteFunc(s.folders, func(x string) bool { return x == path })
		}
	}
	for _, f := range p.Event.Added {
		path, ok := localFolder(f.URI)
		if !ok {
			s.log.Warn(fmt.Sprintf("workspace/didChangeWorkspaceFolders: %s is not a local folder; the agent's tools cannot reach it", f.URI))
			continue
		}
		if !slices.Contains(s.folders, path) {
			s.folders = append(s.folders, path)
		}
	}
	if s.eng == nil {
		return
	}
	if err := s.eng.SetRoots(s.folders); err != nil {
		s.log.Warn("workspace/didChangeWorkspaceFolders: " + err.Error())
	}
}

func (s *Server) initializeResult() (*protocol.InitializeResult, error) {
	caps := rxServerCaps{
		Version:       RxVersion,
		BridgeVersion: s.opts.Version,
		ProtocolID:    extproto.ProtocolID,
		ProtocolMajor: extproto.ProtocolMajor,
		Home:          s.home.Dir,
		Generation:    s.hub.Generation(),
		Plugins:       []pluginBrief{},
		Models:        []string{},
		HookPoints:    []string{},
	}
	for _, r := range s.home.Records() {
		b := pluginBrief{Name: r.Name, Version: r.Version, Enabled: s.home.Enabled(r)}
		if m, err := manifest.Load(r.Dir()); err == nil {
			b.Runtime = m.Runtime != nil
		}
		caps.Plugins = append(caps.Plugins, b)
	}
	for _, m := range s.rt.set.Current().Catalog.Models() {
		caps.Models = append(caps.Models, m.Ref)
	}
	experimental, err := json.Marshal(map[string]any{"rxBridge": caps})
	if err != nil {
		return nil, err
	}
	change := protocol.TextDocumentSyncKindIncremental
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: new(true), Change: &change},
			// The plugins' UI actions, in every document (codeactions.go).
			CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{codeActionKind}},
			// Every workspace folder is a root of the agent's tools;
			// the editor tells of added and removed ones
			// (didChangeWorkspaceFolders).
			Workspace:    &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{Supported: new(true), ChangeNotifications: protocol.Boolean(true)}},
			Experimental: experimental,
		},
		ServerInfo: protocol.ServerInfo{Name: "rx-bridge", Version: protocol.NewOptional(s.opts.Version)},
	}
	if !s.client.dynamicCommands {
		// An editor that registers commands dynamically gets them with
		// client/registerCapability after initialized instead: LSP
		// forbids registering a capability both ways.
		res.Capabilities.ExecuteCommandProvider = protocol.ExecuteCommandOptions{Commands: commands}
	}
	return res, nil
}

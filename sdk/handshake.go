package sdk

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// initialize answers extension/initialize (PROTOCOL_DETAILS §2.2). A
// version mismatch, a refusing OnInitialize and a blank identity are
// fatal: they are answered and then Serve ends with the same error.
func (s *server) initialize(ctx context.Context, raw json.RawMessage) (result any, err error) {
	init, err := decode[extproto.InitializeParams](extproto.MethodInitialize, raw)
	if err != nil {
		// Not fatal: the host may send a valid initialize next.
		s.phase.CompareAndSwap(phaseInitializing, phaseNew)
		return nil, err
	}
	defer func() {
		if err != nil {
			s.phase.Store(phaseStopping)
			s.stop(err)
		}
	}()
	if err := checkVersion(init); err != nil {
		return nil, err
	}
	// Host.Session works from OnInitialize on; the barrier keeps every
	// other reader out until the phase below is published.
	s.init = *init
	if s.p.initialize != nil {
		if err := s.p.initialize(ctx, init); err != nil {
			return nil, extproto.Errorf(extproto.ReasonInternal, "extension refused the handshake: %w", err)
		}
	}
	s.p.freeze()
	res, err := s.handshakeResult()
	if err != nil {
		return nil, err
	}
	// Publishing the phase orders every write above before any handler
	// the barrier admits later.
	s.phase.CompareAndSwap(phaseInitializing, phaseAnswered)
	return res, nil
}

// checkVersion requires our protocol id and major version 1; a version
// that is not an integer is a protocol error, not a version mismatch.
func checkVersion(init *extproto.InitializeParams) error {
	if init.ProtocolID != extproto.ProtocolID {
		return extproto.Errorf(extproto.ReasonUnsupportedVersion, "unsupported protocol id %q: this extension speaks %s", clip(init.ProtocolID), extproto.ProtocolID)
	}
	n, err := strconv.Atoi(init.ProtocolVersion)
	if err != nil {
		return extproto.Errorf(extproto.ReasonProtocolError, "protocolVersion %q is not an integer", clip(init.ProtocolVersion))
	}
	if n != extproto.ProtocolMajor {
		return extproto.Errorf(extproto.ReasonUnsupportedVersion, "unsupported protocol version %q: this extension speaks version %d", clip(init.ProtocolVersion), extproto.ProtocolMajor)
	}
	return nil
}

// handshakeResult builds the answer from the frozen registrations and
// fixes the provider catalog.
func (s *server) handshakeResult() (*extproto.InitializeResult, error) {
	res := &extproto.InitializeResult{
		ProtocolVersion:    extproto.ProtocolVersion,
		Name:               firstNonBlank(s.p.Name, s.opts.Name, os.Getenv("REASONIX_PLUGIN_NAME")),
		Version:            firstNonBlank(s.p.Version, s.opts.Version, os.Getenv("REASONIX_PLUGIN_VERSION")),
		StateSchemaVersion: s.p.StateSchemaVersion,
		Subscriptions:      s.p.subscriptions(),
		Replaces:           s.p.Replaces,
	}
	if res.Name == "" || res.Version == "" {
		return nil, extproto.NewError(extproto.ReasonInternal, "extension name or version is blank: set Plugin.Name and Plugin.Version")
	}
	for _, a := range s.p.actions {
		res.UIActions = append(res.UIActions, a.decl)
	}
	id := firstNonBlank(s.opts.PluginID, os.Getenv("REASONIX_PLUGIN_NAME"), res.Name)
	s.providers = make(map[string]*Provider, len(s.p.providers))
	for i := range s.p.providers {
		prov := &s.p.providers[i]
		d := prov.Descriptor
		d.Ref = qualifyRef(id, d.Ref)
		if _, dup := s.providers[d.Ref]; dup {
			return nil, extproto.Errorf(extproto.ReasonInternal, "provider ref %q declared twice", d.Ref)
		}
		s.providers[d.Ref] = prov
		s.catalog = append(s.catalog, d)
	}
	res.Providers = s.catalog
	return res, nil
}

// qualifyRef completes a relative provider ref ("echo/small") to the
// plugin's namespace: the installed id is only known at run time (an
// install may rename the plugin), and a ref outside plugin/<id>/ fails the
// handshake.
func qualifyRef(pluginID, ref string) string {
	if strings.HasPrefix(ref, "plugin/") {
		return ref
	}
	return extproto.PluginProviderPrefix(pluginID) + ref
}

func firstNonBlank(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

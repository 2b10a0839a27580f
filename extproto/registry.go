package extproto

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// The 16 methods of v1.
const (
	MethodInitialize       = "extension/initialize"
	MethodInitialized      = "extension/initialized"
	MethodShutdown         = "extension/shutdown"
	MethodIntercept        = "extension/intercept"
	MethodEvent            = "extension/event"
	MethodResourcesChanged = "extension/resources/changed"
	MethodProviderCatalog  = "extension/provider/catalog"
	MethodStreamOpen       = "extension/provider/stream/open"
	MethodStreamCancel     = "extension/provider/stream/cancel"
	MethodStreamChunk      = "extension/provider/stream/chunk"
	MethodStreamEnd        = "extension/provider/stream/end"
	MethodUIAction         = "extension/ui/action"
	MethodUISubmit         = "extension/ui/submit"
	MethodUIPublish        = "host/ui/publish"
	MethodUIRequest        = "host/ui/request"
	MethodContentRead      = "host/content/read"
)

// Direction says who sends a method and whether it is answered.
type Direction string

// The four directions.
const (
	HostToExtensionRequest      Direction = "host_to_extension_request"
	ExtensionToHostRequest      Direction = "extension_to_host_request"
	HostToExtensionNotification Direction = "host_to_extension_notification"
	ExtensionToHostNotification Direction = "extension_to_host_notification"
)

// Notification reports whether methods of direction d are notifications.
func (d Direction) Notification() bool { return strings.HasSuffix(string(d), "_notification") }

// FromHost reports whether the host sends methods of direction d.
func (d Direction) FromHost() bool { return strings.HasPrefix(string(d), "host_to_") }

// MethodClass groups methods by concern.
type MethodClass string

// The method classes.
const (
	ClassContent     MethodClass = "content"
	ClassIntercept   MethodClass = "intercept"
	ClassLifecycle   MethodClass = "lifecycle"
	ClassObservation MethodClass = "observation"
	ClassProvider    MethodClass = "provider"
	ClassUI          MethodClass = "ui"
)

// MethodSpec is one registered method: who sends it, whether it is a
// notification, and the Go types of its params and result (Result is nil
// for notifications).
type MethodSpec struct {
	Name         string
	Direction    Direction
	Class        MethodClass
	Notification bool
	Params       reflect.Type
	Result       reflect.Type

	params, result *shape
}

var methods = func() map[string]*MethodSpec {
	type none = struct{}
	specs := []*MethodSpec{
		method[InitializeParams, InitializeResult](MethodInitialize, HostToExtensionRequest, ClassLifecycle),
		method[InitializedParams, none](MethodInitialized, HostToExtensionNotification, ClassLifecycle),
		method[ShutdownParams, ShutdownResult](MethodShutdown, HostToExtensionRequest, ClassLifecycle),
		method[InterceptParams, InterceptResult](MethodIntercept, HostToExtensionRequest, ClassIntercept),
		method[EventParams, none](MethodEvent, HostToExtensionNotification, ClassObservation),
		method[ResourcesChangedParams, none](MethodResourcesChanged, HostToExtensionNotification, ClassObservation),
		method[ProviderCatalogParams, ProviderCatalogResult](MethodProviderCatalog, HostToExtensionRequest, ClassProvider),
		method[StreamOpenParams, StreamOpenResult](MethodStreamOpen, HostToExtensionRequest, ClassProvider),
		method[StreamCancelParams, StreamCancelResult](MethodStreamCancel, HostToExtensionRequest, ClassProvider),
		method[StreamChunkParams, none](MethodStreamChunk, ExtensionToHostNotification, ClassProvider),
		method[StreamEndParams, none](MethodStreamEnd, ExtensionToHostNotification, ClassProvider),
		method[UIActionParams, UIActionResult](MethodUIAction, HostToExtensionRequest, ClassUI),
		method[UISubmitParams, UISubmitResult](MethodUISubmit, HostToExtensionRequest, ClassUI),
		method[UIPublishParams, UIPublishResult](MethodUIPublish, ExtensionToHostRequest, ClassUI),
		method[UIRequestParams, UIRequestResult](MethodUIRequest, ExtensionToHostRequest, ClassUI),
		method[ContentReadParams, ContentReadResult](MethodContentRead, ExtensionToHostRequest, ClassContent),
	}
	m := make(map[string]*MethodSpec, len(specs))
	for _, s := range specs {
		m[s.Name] = s
	}
	return m
}()

// method builds a spec; R is struct{} for a notification, which has no
// result.
func method[P, R any](name string, dir Direction, class MethodClass) *MethodSpec {
	s := &MethodSpec{Name: name, Direction: dir, Class: class, Notification: dir.Notification(), Params: reflect.TypeFor[P]()}
	s.params = shapeOf(s.Params)
	if !s.Notification {
		s.Result = reflect.TypeFor[R]()
		s.result = shapeOf(s.Result)
	}
	return s
}

// LookupMethod returns the registered method named name.
func LookupMethod(name string) (MethodSpec, bool) {
	s, ok := methods[name]
	if !ok {
		return MethodSpec{}, false
	}
	return *s, true
}

// Methods returns every registered method, sorted by name.
func Methods() []MethodSpec {
	out := make([]MethodSpec, 0, len(methods))
	for _, s := range methods {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DecodeParams strictly decodes the params of method (see Decode) and
// returns a pointer to the method's params DTO, e.g. *InterceptParams.
// Missing or empty params decode as `{}`. A failure is an *Error with
// reason invalid_params whose message names the method and the JSON
// pointer; an unregistered method is unknown_method.
func DecodeParams(method string, raw json.RawMessage) (any, error) {
	s, ok := methods[method]
	if !ok {
		return nil, NewError(ReasonUnknownMethod, "method not found: "+method)
	}
	if len(raw) == 0 {
		raw = emptyObject
	}
	v := reflect.New(s.Params)
	if err := decodeRoot(s.params, raw, v.Elem()); err != nil {
		return nil, Errorf(ReasonInvalidParams, "invalid %s params: %w", method, err)
	}
	return v.Interface(), nil
}

// DecodeResult strictly decodes the result of method and returns a pointer
// to the method's result DTO. The result came from the peer, so a failure
// fails the local call as protocol_error ("invalid <method> result: ...").
// A notification has no result; asking for one is unknown_method.
func DecodeResult(method string, raw json.RawMessage) (any, error) {
	return decodeResult(method, raw, false)
}

// DecodeResultOwned is DecodeResult of a raw the caller hands over: nobody
// may write it again, since big strings of the result (a content page's
// megabyte of base64) share its memory instead of being copied out of it.
func DecodeResultOwned(method string, raw json.RawMessage) (any, error) {
	return decodeResult(method, raw, true)
}

func decodeResult(method string, raw json.RawMessage, owned bool) (any, error) {
	s, ok := methods[method]
	if !ok || s.Notification {
		return nil, NewError(ReasonUnknownMethod, "no result registered for method "+method)
	}
	v := reflect.New(s.Result)
	if err := decodeInto(s.result, raw, owned, v.Elem()); err != nil {
		return nil, Errorf(ReasonProtocolError, "invalid %s result: %w", method, err)
	}
	return v.Interface(), nil
}

var emptyObject = []byte("{}")

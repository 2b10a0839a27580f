package extproto

import (
	"reflect"
	"testing"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	all := Methods()
	if len(all) != 16 {
		t.Fatalf("%d methods, want 16", len(all))
	}
	count := map[Direction]int{}
	for i, m := range all {
		if i > 0 && all[i-1].Name >= m.Name {
			t.Errorf("Methods() not sorted at %s", m.Name)
		}
		count[m.Direction]++
		if m.Notification != m.Direction.Notification() {
			t.Errorf("%s: notification %v disagrees with direction %s", m.Name, m.Notification, m.Direction)
		}
		if (m.Result == nil) != m.Notification {
			t.Errorf("%s: result type %v for notification=%v", m.Name, m.Result, m.Notification)
		}
		if m.Params == nil || m.Params.Kind() != reflect.Struct {
			t.Errorf("%s: params type %v", m.Name, m.Params)
		}
		got, ok := LookupMethod(m.Name)
		if !ok || got.Name != m.Name || got.Params != m.Params {
			t.Errorf("LookupMethod(%q) = %v, %v", m.Name, got.Name, ok)
		}
		if v, err := DecodeParams(m.Name, nil); err == nil && reflect.TypeOf(v).Elem() != m.Params {
			t.Errorf("DecodeParams(%s) returned %T", m.Name, v)
		}
	}
	want := map[Direction]int{HostToExtensionRequest: 8, ExtensionToHostRequest: 3, HostToExtensionNotification: 3, ExtensionToHostNotification: 2}
	if !reflect.DeepEqual(count, want) {
		t.Fatalf("directions %v, want %v", count, want)
	}
	if _, ok := LookupMethod("extension/bogus"); ok {
		t.Fatal("LookupMethod found an unregistered method")
	}
	if m, _ := LookupMethod(MethodUIPublish); m.Direction.FromHost() || m.Class != ClassUI {
		t.Fatalf("host/ui/publish: %+v", m)
	}
}

func TestEnumsAreSortedAndValid(t *testing.T) {
	t.Parallel()
	for _, e := range []enumer{HookPoint(""), InterceptDecision(""), UIHostKind(""), UISurfaceKind(""), UIRequestKind(""), UIFieldKind(""), UISeverity(""), ProviderRole(""), ProviderChunkType(""), ProviderErrorCode(""), ContentEncoding(""), SessionPhase(""), HostDecision("")} {
		vals := e.enumValues()
		for i := 1; i < len(vals); i++ {
			if vals[i-1] >= vals[i] {
				t.Errorf("%T values not in lexical order: %v", e, vals)
			}
		}
		for _, v := range vals {
			typed := reflect.ValueOf(v).Convert(reflect.TypeOf(e)).Interface().(interface{ Valid() bool })
			if !typed.Valid() {
				t.Errorf("%T(%q).Valid() = false", e, v)
			}
		}
		if zero := e.(interface{ Valid() bool }); zero.Valid() {
			t.Errorf("%T(\"\").Valid() = true", e)
		}
	}
	if ProviderCodeFailed.Reason() != ReasonProviderFailed || ProviderCodeInterrupted.Reason() != ReasonProviderInterrupted {
		t.Fatal("provider error codes do not map to their reasons")
	}
}

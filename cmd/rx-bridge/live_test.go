package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
)

// homeWithExamples is a bridge home with the example plugins installed
// from source, and the getenv that points the CLI at it.
func homeWithExamples(t *testing.T, names ...string) (string, func(string) string) {
	t.Helper()
	home := t.TempDir()
	for _, n := range names {
		examplestest.Install(t, home, n)
	}
	return home, func(k string) string {
		if k == "RX_BRIDGE_HOME" {
			return home
		}
		return ""
	}
}

func TestHookThroughTheHelloExample(t *testing.T) {
	t.Parallel()
	_, getenv := homeWithExamples(t, "hello")
	tests := []struct {
		payload, want string
		changed       bool
	}{
		{`{"text":"/hello Ada"}`, `{"text":"Please greet Ada warmly, in one sentence."}`, true},
		{`{"text":"/helloworld"}`, `{"text":"/helloworld"}`, false},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := runHook([]string{"input.receive", "--payload", tc.payload, "--json"}, &stdout, &stderr, getenv); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		var r hookJSON
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, r.Payload)
		if compact.String() != tc.want || r.Changed != tc.changed || r.Interceptors != 1 || len(r.Rulings) != 1 || r.Rulings[0].Plugin != "hello" {
			t.Fatalf("payload %s, report %+v", compact.String(), r)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runHook([]string{"input.receive", "--payload", `{"text":"/hello"}`}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"input.receive: 1 interceptor(s)", "  hello ", "replace", `payload (replaced): {"text":"Please greet me warmly, in one sentence."}`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestDoctorStartsTheRuntime(t *testing.T) {
	t.Parallel()
	_, getenv := homeWithExamples(t, "hello", "echo-provider")
	var stdout, stderr bytes.Buffer
	if code := runPlugin([]string{"doctor", "--json"}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	var out doctorJSON
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]*startJSON{}
	for _, p := range out.Plugins {
		got[p.Name] = p.Start
	}
	if st := got["hello"]; st == nil || !st.OK || st.Name != "hello" || strings.Join(st.UIActions, ",") != "/hello:greet" {
		t.Fatalf("hello start %+v", st)
	}
	if st := got["echo-provider"]; st == nil || !st.OK || len(st.Providers) == 0 || !strings.HasPrefix(st.Providers[0], "plugin/echo-provider/echo/") {
		t.Fatalf("echo-provider start %+v", st)
	}
	stdout.Reset()
	if code := runPlugin([]string{"doctor", "hello"}, &stdout, &stderr, getenv); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "ok    runtime started and answered the handshake as hello 0.1.0 (spawn ") || !strings.Contains(stdout.String(), "UI actions: /hello:greet") {
		t.Fatalf("doctor text:\n%s", stdout.String())
	}
}

func TestDoctorReportsAFailedStartRedacted(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	dir := e.plugin("crashy", map[string]string{
		"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"crashy","version":"1.0.0","runtime":{"command":"${REASONIX_PLUGIN_ROOT}/bin/run"}}`,
		"bin/run":              "+x:#!/bin/sh\necho 'boot failed: token=ghp_abcdefghijklmnopqrstuvwxyz0123456789' >&2\nexit 3\n",
	})
	e.mustRun(0, "install", "--yes", dir)
	stdout, _ := e.mustRun(1, "doctor", "crashy")
	for _, want := range []string{"crashy: FAILED", "fail  runtime start: extension sidecar crashy startup handshake failed after", "stderr: boot failed: token="} {
		if !strings.Contains(stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Fatalf("the planted secret reached doctor's output:\n%s", stdout)
	}
}

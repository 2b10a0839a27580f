package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChatUndoScripted: --prompt /undo undoes the last turn not undone
// yet (a file the turn created removed, a changed one restored), lists
// what it restored, and fails once nothing is left; the line never
// reaches the model.
func TestChatUndoScripted(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "yolo")
	code, stdout, stderr := chatRun(t, getenv, "", "--workspace", ws,
		"--prompt", "write notes.txt new words", "--prompt", "write todo.txt buy bread",
		"--prompt", "/undo", "--prompt", "/undo", "--prompt", "/undo", "--prompt", "/undo again")
	if code != 1 {
		t.Errorf("exit %d, want 1 (the third undo has nothing to undo)", code)
	}
	if _, err := os.Stat(filepath.Join(ws, "todo.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("todo.txt, created by turn 2, after its undo: %v", err)
	}
	if got := readFile(t, filepath.Join(ws, "notes.txt")); got != "remember the milk\nand eggs\n" {
		t.Errorf("notes.txt after the undo of turn 1: %q", got)
	}
	for _, want := range []string{
		"undid turn 2:\n  restored todo.txt\nundid turn 1:\n  restored notes.txt\n",
		`rx-bridge chat: nothing to undo in session "`,
		"rx-bridge chat: /undo again: /undo takes no argument but force\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout, "/undo") || strings.Contains(stdout, "[turn 3") {
		t.Errorf("/undo reached the model:\n%s", stdout)
	}
}

// TestChatUndoInteractive: /undo leaves a file the user changed since
// the turn alone and says so; /undo force restores it.
func TestChatUndoInteractive(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "yolo")
	notes := filepath.Join(ws, "notes.txt")
	inR, inW := io.Pipe()
	stdout, stderr := &syncWriter{w: &bytes.Buffer{}}, &syncWriter{w: &bytes.Buffer{}}
	code := make(chan int, 1)
	go func() { code <- runChat([]string{"--workspace", ws}, inR, stdout, stderr, getenv) }()
	waitFor := func(w *syncWriter, want string) {
		t.Helper()
		for deadline := time.Now().Add(scaled(30 * time.Second)); !strings.Contains(w.String(), want); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in:\n%s\nstderr:\n%s", want, w.String(), stderr.String())
			}
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send("write notes.txt new words")
	waitFor(stdout, "[turn 1: end_turn]")
	if got := readFile(t, notes); got != "new words\n" {
		t.Fatalf("notes.txt after the turn: %q", got)
	}
	// The user changes the file after the turn.
	if err := os.WriteFile(notes, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	send("/undo")
	waitFor(stderr, "undid turn 1:\n  skipped notes.txt: changed since the turn (force restores it anyway)\n")
	if got := readFile(t, notes); got != "mine\n" {
		t.Errorf("notes.txt after an undo that skipped it: %q", got)
	}
	send("/undo force")
	waitFor(stderr, "undid turn 1:\n  restored notes.txt\n")
	if got := readFile(t, notes); got != "remember the milk\nand eggs\n" {
		t.Errorf("notes.txt after /undo force: %q", got)
	}
	_ = inW.Close()
	if c := <-code; c != 0 {
		t.Errorf("exit %d\nstderr:\n%s", c, stderr.String())
	}
	if strings.Contains(stdout.String(), "/undo") || strings.Contains(stdout.String(), "[turn 2") {
		t.Errorf("/undo reached the model:\n%s", stdout.String())
	}
}

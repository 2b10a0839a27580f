package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// Surface ids: re-publishing one updates it in place.
const (
	statusSurface   = "hello-status"
	cardSurface     = "hello-card"
	greetingSurface = "hello-greeting"
)

// styles are the greeting styles the greet action offers, in menu order.
var styles = []string{"friendly", "formal", "pirate"}

func newPlugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "hello", Version: "0.1.0"}
	sdk.Intercept(p, rewriteHello)
	sdk.Observe(p, announce)
	p.Action("greet", "Greet me", greet)
	return p
}

// rewriteHello turns "/hello" and "/hello <who>" into a request the model
// can act on; every other input passes unchanged.
func rewriteHello(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(in.Text), "/hello")
	if !ok || (rest != "" && rest[0] != ' ') {
		return sdk.Continue(), nil // "/helloworld" is not the command
	}
	who := strings.TrimSpace(rest)
	if who == "" {
		who = "me"
	}
	return sdk.Replace(&extproto.InputReceivePayload{Text: "Please greet " + who + " warmly, in one sentence."}), nil
}

// announce shows that the plugin is live in the new session: a status
// line, and a card saying what it offers with its greet action. It is an
// observer, not an interceptor, so the session never waits for it.
func announce(ctx context.Context, in *extproto.SessionStartPayload) {
	status := extproto.UIStatusPayload{Label: "hello: ready", Detail: "type /hello <name>, or run /hello:greet", Severity: extproto.SeverityInfo}
	if in.SessionPath != "" {
		status.Detail += " (session " + in.SessionPath + ")"
	}
	if _, err := sdk.HostFrom(ctx).Publish(ctx, statusSurface, status); err != nil {
		fmt.Fprintf(os.Stderr, "hello: status: %v\n", err)
	}
	card := extproto.UICardPayload{
		Title:    "Hello, plugin",
		Markdown: "Type `/hello Ada` in a chat, or use the **Greet me** action.",
		Fields:   []extproto.UIKeyValue{{Key: "styles", Value: strings.Join(styles, ", ")}},
		Actions:  []extproto.UIActionRef{{ActionID: "greet", Label: "Greet me"}},
	}
	if _, err := sdk.HostFrom(ctx).Publish(ctx, cardSurface, card); err != nil {
		fmt.Fprintf(os.Stderr, "hello: card: %v\n", err)
	}
}

// greet asks for a style and a name, then greets with a notification.
// args["name"] pre-fills the name.
func greet(ctx context.Context, a *extproto.UIActionParams) (string, error) {
	h := sdk.HostFrom(ctx)
	style, err := h.Select(ctx, "How should I greet you?", styles)
	if err != nil {
		return "", cancelled(err)
	}
	name, err := h.Input(ctx, "Your name", a.Args["name"])
	if err != nil {
		return "", cancelled(err)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "stranger"
	}
	text := greeting(style, name)
	if _, err := h.Publish(ctx, greetingSurface, extproto.UINotificationPayload{Title: text, Body: "Greeted by the hello example plugin.", Severity: extproto.SeverityInfo}); err != nil {
		return "", err
	}
	return text, nil
}

func greeting(style, name string) string {
	switch style {
	case "formal":
		return "Good day, " + name + "."
	case "pirate":
		return "Ahoy, " + name + "!"
	}
	return "Hello, " + name + "!"
}

func cancelled(err error) error {
	if errors.Is(err, sdk.ErrDismissed) {
		return errors.New("greeting cancelled")
	}
	return err
}

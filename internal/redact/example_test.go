package redact_test

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

func ExampleRedactor_String() {
	r := redact.New([]string{"DB_PASSWORD=hunter2hunter2"})
	fmt.Println(r.String("connect failed: api_key=sk-abcdef1234567890SECRETKEY"))
	fmt.Println(r.String("POST https://bot:pw@api.example.com Authorization: Bearer abc.def"))
	fmt.Println(r.String("login with hunter2hunter2 refused"))
	fmt.Println(r.String("**Build failed**: the token count is 5"))
	// Output:
	// connect failed: api_key=****
	// POST https://[redacted]@api.example.com Authorization: Bearer [redacted]
	// login with [redacted] refused
	// **Build failed**: the token count is 5
}

func ExampleRedactor_Err() {
	var r redact.Redactor
	err := r.Err(fmt.Errorf("spawn with token=abc123: %w", fs.ErrPermission))
	fmt.Println(err)
	fmt.Println(errors.Is(err, fs.ErrPermission))
	// Output:
	// spawn with token=[redacted] permission denied
	// true
}

package agent

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// MaxPromptImageBytes caps the decoded bytes of all images of one prompt.
// It keeps the user message that carries them (base64 data URLs, 4/3 of
// the bytes) inside one extension protocol frame (8 MiB) and one
// transcript line (16 MiB), so interceptors of context.prepare and
// provider.request see the message and a reload reads it back.
const MaxPromptImageBytes = 5 << 20

// ImageTypes are the MIME types a prompt image may have: the formats the
// OpenAI-compatible image_url part is documented to take.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Image is one image attached to a prompt.
type Image struct {
	MimeType string
	Data     []byte
}

// Input is what the user sends in one prompt: text and images.
type Input struct {
	Text   string
	Images []Image
}

// ImageInfo describes an image of a user message as shown and stored with
// its update: the bytes themselves go to the model history only (a data
// URL in the user message's images), so replay names the image without
// repeating it.
type ImageInfo struct {
	MimeType string `json:"mimeType"`
	Size     int    `json:"size"`
	SHA256   string `json:"sha256"`
}

// ErrImages matches every error refusing a prompt's images (errors.Is):
// a front end answers it as bad input.
var ErrImages = errors.New("prompt images refused")

type imageError string

func (e imageError) Error() string      { return string(e) }
func (imageError) Is(target error) bool { return target == ErrImages }

// checkImages refuses images a prompt may not carry: an unknown type, an
// empty image, or more than MaxPromptImageBytes together.
func checkImages(images []Image) error {
	total := 0
	for i, img := range images {
		if !imageType(img.MimeType) {
			return imageError(locale.T("image %d: type %q is not one of %s", i+1, img.MimeType, strings.Join(ImageTypes, ", ")))
		}
		if len(img.Data) == 0 {
			return imageError(locale.T("image %d is empty", i+1))
		}
		total += len(img.Data)
	}
	if total > MaxPromptImageBytes {
		return imageError(locale.T("the images of a prompt may have %d bytes together, these have %d", MaxPromptImageBytes, total))
	}
	return nil
}

func imageType(mime string) bool {
	for _, t := range ImageTypes {
		if mime == t {
			return true
		}
	}
	return false
}

// imageURLs are the data URLs the user message carries for images.
func imageURLs(images []Image) []string {
	if len(images) == 0 {
		return nil
	}
	out := make([]string, len(images))
	for i, img := range images {
		out[i] = "data:" + img.MimeType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
	}
	return out
}

// imageInfos describe images for their update.
func imageInfos(images []Image) []ImageInfo {
	if len(images) == 0 {
		return nil
	}
	out := make([]ImageInfo, len(images))
	for i, img := range images {
		sum := sha256.Sum256(img.Data)
		out[i] = ImageInfo{MimeType: img.MimeType, Size: len(img.Data), SHA256: hex.EncodeToString(sum[:])}
	}
	return out
}

// visionError is the error for images sent to a model that does not take
// them: named, never dropped silently.
func visionError(model string) error {
	return imageError(locale.T("model %s does not accept images: pick a model with vision (for an OpenAI-compatible model, set vision = true in its config if it takes them)", model))
}

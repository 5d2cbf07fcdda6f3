package hosted_test

import (
	"errors"
	"fmt"

	"github.com/pfcsdk/pfc-go/hosted"
	"github.com/pfcsdk/pfc-go/pfc"
)

func ExampleNewCorrection() {
	opts := hosted.NewCorrection().WithFileKey("f_123").
		WithPreset(hosted.PresetSchoolAndSports).
		ResizeLong(2000).
		RemoveBackgroundColor("#ffffff").
		WithShadow(hosted.ShadowSoft).
		WithOutput(pfc.OutputJPEG, 92).
		WithCache(false)

	q, err := opts.Query()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q)
	// Output:
	// bgColor=%23ffffff&bgShadow=soft&cache=false&fileKey=f_123&long=2000&outputQuality=92&outputType=jpg&preset=School%20and%20Sports&removeBackground=true
}

func ExampleCorrectionOptions_Plan() {
	opts := &hosted.CorrectionOptions{
		FileKey:            "f_123",
		Width:              1200,
		Scale:              150,
		RemoveBackground:   true,
		BgGenerativePrompt: "a sunny beach",
		BgColor:            "navy",
		OutputQuality:      80, // PNG output: removeBackground without outputType
	}
	plan := opts.Plan()
	fmt.Println("resize:", plan.Resize, plan.ResizeValue)
	fmt.Println("background:", plan.Background)
	for _, ig := range plan.Ignored {
		fmt.Println("ignored:", ig)
	}

	// Strict mode turns each ignored parameter into a validation error.
	err := opts.WithStrict().Validate()
	var ve *pfc.ValidationError
	if errors.As(err, &ve) {
		fmt.Println("strict:", ve.Fields())
	}
	// Output:
	// resize: width 1200
	// background: generative
	// ignored: scale: width takes priority (use one resize parameter per request)
	// ignored: outputQuality: output is PNG (removeBackground with outputType omitted)
	// ignored: bgColor: bgGenerativePrompt takes priority
	// strict: [scale outputQuality bgColor]
}

func ExampleCorrectionOptions_Validate() {
	opts := &hosted.CorrectionOptions{FileKey: "f_123", Width: 20, OutputQuality: 101, WebhookURL: "http://example.com/hook"}
	err := opts.Validate()
	fmt.Println(errors.Is(err, pfc.ErrInvalidParameter))
	fmt.Println(err)
	// Output:
	// true
	// pfc: invalid parameters: width: must be between 32 and 10000 pixels, got 20; outputQuality: must be between 40 and 100, got 101; webhookUrl: must use https (the service rejects plain http)
}

func ExampleParseColor() {
	c, err := hosted.ParseColor("RebeccaPurple")
	fmt.Println(c, err)
	_, err = hosted.ParseColor("#fff")
	fmt.Println(err)
	// Output:
	// {102 51 153 255} <nil>
	// pfc: invalid color "#fff": want #rrggbb with exactly 6 hex digits
}

/** A Lambda function's ARN (with an optional version or alias), as RotationLambdaARN and REST's `function` take it. */
export const LAMBDA_ARN = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_$-]{1,128})?$/;

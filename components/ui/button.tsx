import type { ButtonHTMLAttributes } from "react";

export type ButtonTone = "primary" | "secondary" | "danger" | "ghost";

const tones: Record<ButtonTone, string> = {
  primary: "bg-blue-700 text-white hover:bg-blue-800 disabled:bg-blue-300",
  secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 disabled:text-slate-400",
  danger: "border border-red-300 bg-white text-red-700 hover:bg-red-50 disabled:text-red-300",
  ghost: "text-slate-700 hover:bg-slate-100 disabled:text-slate-400",
};

export const focusRing =
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600";

/**
 * A link inside a sentence ("blocked by #51, #52"): underlined, so it is told apart from the
 * text around it by more than its colour (WCAG 1.4.1; axe's link-in-text-block).
 */
export const inlineLink = `rounded text-blue-700 underline underline-offset-2 hover:decoration-2 ${focusRing}`;

export function buttonClass(tone: ButtonTone = "secondary", size: "sm" | "md" = "md") {
  const padding = size === "sm" ? "px-2.5 py-1 text-sm" : "px-3.5 py-2 text-sm";
  return `inline-flex items-center justify-center gap-1.5 rounded-md font-medium transition-colors disabled:cursor-not-allowed ${padding} ${tones[tone]} ${focusRing}`;
}

export function Button({
  tone = "secondary",
  size = "md",
  className = "",
  type = "button",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { tone?: ButtonTone; size?: "sm" | "md" }) {
  return <button type={type} className={`${buttonClass(tone, size)} ${className}`} {...props} />;
}

#version 330 core
// One solid colour, unblended: screenshot tests tell grid from character by it.

uniform vec3 u_color;  // display colour, not linear

out vec4 out_color;

void main() { out_color = vec4(u_color, 1.0); }

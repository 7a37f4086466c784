float h[] = {0.1f, -0.2f, 0.3f};
